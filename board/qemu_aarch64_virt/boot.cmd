# SPDX-License-Identifier: GPL-2.0-only
# U-Boot script of qemu_aarch64_virt's A/B slots (mkimage -T script makes
# boot.scr of it), the boot counting RAUC documents for U-Boot:
#   BOOT_ORDER    the slots in the order they are tried ("A B")
#   BOOT_A_LEFT   tries left of slot A (BOOT_B_LEFT of B), at most 9:
#                 setexpr answers in hex
# The first slot with tries left is taken; its count is decremented and
# saved before its kernel starts, so a slot that never reaches
# `strata update mark-good` (which gives it its tries back) runs out and the
# next one in the order boots. When none has tries left, all get them back
# and the board resets.
# The counters are a U-Boot environment (CRC32, then NUL-separated NAME=VALUE,
# 16 KiB) kept twice in the boot disk's "bootenv" partition, at 0 and 64 KiB,
# written in that order: a write cut by a power cut leaves one whole copy.
# The boot disk is the first virtio disk with a bootenv partition.
# A slot is the partitions kernel_x and initramfs_x (x: the slot's letter in
# lower case); the kernel command line gets strata.slot=X.
setenv bdev
for d in 0 1 2 3; do
	if test -z "${bdev}" && part start virtio ${d} bootenv env_blk; then
		setenv bdev ${d}
	fi
done
if test -z "${bdev}"; then
	echo "strata-boot: no bootenv partition on a virtio disk"
	reset
fi
setexpr env_blk2 ${env_blk} + 0x80
virtio dev ${bdev}
# what the running system keeps beside the counters (strata update: each
# slot's version and the tries it was given), carried through every save
setenv keep "STRATA_A_VERSION STRATA_B_VERSION STRATA_A_TRIES STRATA_B_TRIES"
setenv BOOT_ORDER
setenv BOOT_A_LEFT
setenv BOOT_B_LEFT
setenv env_copy
virtio read ${loadaddr} ${env_blk} 0x20
if env import -c ${loadaddr} 0x4000 BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT ${keep}; then
	setenv env_copy 1
else
	virtio read ${loadaddr} ${env_blk2} 0x20
	if env import -c ${loadaddr} 0x4000 BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT ${keep}; then
		setenv env_copy 2
	fi
fi
if test -z "${env_copy}" || test -z "${BOOT_ORDER}"; then
	echo "strata-boot: no valid boot counters: both slots get 3 tries"
	setenv BOOT_ORDER "A B"
	setenv BOOT_A_LEFT 3
	setenv BOOT_B_LEFT 3
	setenv env_copy none
fi
setenv slot
for s in ${BOOT_ORDER}; do
	if test -z "${slot}"; then
		if test "${s}" = A && test ${BOOT_A_LEFT} -gt 0; then
			setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
			setenv slot A
			setenv sfx a
			setenv left ${BOOT_A_LEFT}
		elif test "${s}" = B && test ${BOOT_B_LEFT} -gt 0; then
			setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
			setenv slot B
			setenv sfx b
			setenv left ${BOOT_B_LEFT}
		fi
	fi
done
if test -z "${slot}"; then
	echo "strata-boot: no slot has tries left: all get 3 again"
	setenv BOOT_A_LEFT 3
	setenv BOOT_B_LEFT 3
fi
env export -c -s 0x4000 ${loadaddr} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT ${keep}
virtio write ${loadaddr} ${env_blk} 0x20
virtio write ${loadaddr} ${env_blk2} 0x20
if test -z "${slot}"; then
	reset
fi
echo "strata-boot: slot ${slot} (${left} tries left after this one; counters from copy ${env_copy})"
setenv loaded
if part start virtio ${bdev} kernel_${sfx} k_blk; then
	if part size virtio ${bdev} kernel_${sfx} k_cnt; then
		if virtio read ${kernel_addr_r} ${k_blk} ${k_cnt}; then
			setenv loaded kernel
		fi
	fi
fi
if part start virtio ${bdev} initramfs_${sfx} i_blk; then
	if part size virtio ${bdev} initramfs_${sfx} i_cnt; then
		if virtio read ${ramdisk_addr_r} ${i_blk} ${i_cnt}; then
			setenv loaded "${loaded} initramfs"
		fi
	fi
fi
if test "${loaded}" = "kernel initramfs"; then
	setexpr i_bytes ${i_cnt} * 0x200
	setenv bootargs "${strata_bootargs} strata.slot=${slot}"
	booti ${kernel_addr_r} ${ramdisk_addr_r}:${i_bytes} ${fdt_addr}
fi
echo "strata-boot: slot ${slot} did not start"
reset
