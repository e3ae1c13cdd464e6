#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The A/B boot counting of board/qemu_aarch64_virt/boot.cmd in a real
# bootloader: Debian's U-Boot (u-boot-qemu, qemu_arm64) under
# qemu-system-aarch64, with the factory environment (uboot-env.txt) in the
# second CFI flash and a boot disk laid out as tools/bootdisk.sh lays it out.
# The slots' kernels are not kernels, so each try fails and U-Boot resets
# (QEMU -no-reboot ends there): every run is one try, and the counters it
# saved are read back by libubootenv's fw_printenv and by strata's own
# environment code (tests/bootenv_tool.c over init/lib/bootenv.c), which
# also makes the edits the running system makes (mark good).
# Prints PASS/FAIL lines; exits 77 with the reason as its last line when a
# tool is missing (make deps installs them).
# usage: tests/uboot.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
uboot=/usr/lib/u-boot/qemu_arm64/u-boot.bin
for tool in gcc qemu-system-aarch64 mkimage mkenvimage fw_printenv fw_setenv sfdisk mke2fs; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool not installed (packages qemu-system-arm, u-boot-tools, libubootenv-tool, fdisk, e2fsprogs: make deps)"
		exit 77
	fi
done
if [ ! -f "$uboot" ]; then
	echo "$uboot not installed (package u-boot-qemu: make deps)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

warnings=$(make -s -C "$top" print-warnings)
# shellcheck disable=SC2086
if ! gcc -std=gnu11 -O1 $warnings -I"$top/init/lib" -o bootenv_tool "$top/tests/bootenv_tool.c" \
	"$top/init/lib/bootenv.c" "$top/init/lib/record.c" "$top/init/lib/strbuf.c" 2> build.log; then
	echo "FAIL uboot/build: tests/bootenv_tool.c does not compile: $(head -c 2000 build.log)"
	exit 1
fi
if ! "$top/tools/bootdisk.sh" disk.img flash1.img "$top/board/qemu_aarch64_virt" \
	kernel_a=/dev/null kernel_b=/dev/null 2> layout.log; then
	echo "FAIL uboot/layout: tools/bootdisk.sh: $(head -c 2000 layout.log)"
	exit 1
fi
cp disk.img pristine.img
# the same inputs, a second later, lay out the same bytes
sleep 1
if "$top/tools/bootdisk.sh" again.img again1.img "$top/board/qemu_aarch64_virt" \
	kernel_a=/dev/null kernel_b=/dev/null 2>> layout.log &&
	cmp -s disk.img again.img && cmp -s flash1.img again1.img; then
	echo "PASS uboot/layout_is_reproducible"
else
	echo "FAIL uboot/layout_is_reproducible: a second layout of the same inputs differs"
fi
rm -f again.img again1.img
# where the two copies of the counters are (tools/bootdisk.sh: the bootenv partition)
env_off=$(($(sfdisk -d disk.img | awk -F'[=,]' '/name="bootenv"/ {print $2}') * 512))
env_size=0x4000 copy2=65536
echo "$work/disk.img $env_off $env_size" > fw.config

# one power-on: U-Boot runs boot.scr, which takes a slot, saves the counters
# and fails to start the slot's kernel; its console is in boot.log
power_on() {
	timeout 120 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1024 -nographic \
		-no-user-config -nic none -no-reboot -bios "$uboot" \
		-drive "if=pflash,format=raw,index=1,file=flash1.img,readonly=on" \
		-drive "if=virtio,format=raw,file=disk.img" < /dev/null > boot.log 2>&1
	tr -d '\r' < boot.log | grep '^strata-boot:' > said.log
}
copy() { # N: copy N of the counters to stdout
	dd if=disk.img bs=1 skip=$((env_off + ($1 - 1) * copy2)) count=$((env_size)) status=none
}
counters() { # N: copy N as our code lists it, one line
	copy "$1" > copy.bin && ./bootenv_tool uboot copy.bin $env_size list | tr '\n' ' '
}
put_both() { # FILE: the same environment into both copies, as the system writes them
	dd if="$1" of=disk.img bs=1 seek="$env_off" conv=notrunc status=none &&
		dd if="$1" of=disk.img bs=1 seek=$((env_off + copy2)) conv=notrunc status=none
}
expect() { # name "what U-Boot says" "counters after"
	local name=$1 said=$2 want=$3 fw c1 c2
	fw=$(fw_printenv -c fw.config -f /dev/null 2>&1 | tr '\n' ' ')
	c1=$(counters 1) c2=$(counters 2)
	if ! grep -qF -- "$said" said.log; then
		echo "FAIL uboot/$name: U-Boot did not say '$said'; it said: $(tr '\n' '|' < said.log) (console: $work/boot.log)"
	elif [ "$fw" != "$want" ] || [ "$c1" != "$want" ] || [ "$c2" != "$want" ]; then
		echo "FAIL uboot/$name: counters wanted '$want'; fw_printenv: '$fw', ours: copy 1 '$c1', copy 2 '$c2'"
	else
		echo "PASS uboot/$name"
	fi
}

power_on
expect erased_counters_give_both_slots_three_tries "no valid boot counters" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=3 BOOT_ORDER=A B "
grep -q "slot A (2 tries left" said.log || echo "FAIL uboot/first_try_is_slot_a: $(cat said.log)"
power_on
expect second_try_decrements "slot A (1 tries left after this one; counters from copy 1)" \
	"BOOT_A_LEFT=1 BOOT_B_LEFT=3 BOOT_ORDER=A B "
power_on
power_on
expect slot_without_tries_falls_back_to_the_next "slot B (2 tries left" \
	"BOOT_A_LEFT=0 BOOT_B_LEFT=2 BOOT_ORDER=A B "

# the running system marks slot A good: our code writes both copies
copy 1 > good.bin && ./bootenv_tool uboot good.bin $env_size set BOOT_A_LEFT 3 && put_both good.bin
power_on
expect marked_good_by_strata_is_taken_again "slot A (2 tries left" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=2 BOOT_ORDER=A B "

# a write cut in the first copy: the second is whole, and both are written again
printf 'X' | dd of=disk.img bs=1 seek=$((env_off + 100)) conv=notrunc status=none
power_on
expect torn_first_copy_read_from_the_second "counters from copy 2" \
	"BOOT_A_LEFT=1 BOOT_B_LEFT=2 BOOT_ORDER=A B "

# both copies torn: the counters start again (the disk holds nothing else to lose)
printf 'X' | dd of=disk.img bs=1 seek=$((env_off + 100)) conv=notrunc status=none
printf 'X' | dd of=disk.img bs=1 seek=$((env_off + copy2 + 100)) conv=notrunc status=none
power_on
expect both_copies_torn_start_again "no valid boot counters" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=3 BOOT_ORDER=A B "

# libubootenv's fw_setenv (one copy: the first) changes the order
fw_setenv -c fw.config -f /dev/null BOOT_ORDER "B A" 2> fw_setenv.err
power_on
expect order_set_by_fw_setenv_is_followed "slot B (2 tries left" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=2 BOOT_ORDER=B A "

# no slot has tries left: all get them back, and the board resets; what
# strata keeps beside the counters (a slot's version) stays through the save
copy 1 > none.bin && ./bootenv_tool uboot none.bin $env_size set BOOT_A_LEFT 0 &&
	./bootenv_tool uboot none.bin $env_size set BOOT_B_LEFT 0 &&
	./bootenv_tool uboot none.bin $env_size set STRATA_B_VERSION 7 && put_both none.bin
power_on
expect no_tries_left_anywhere_resets_the_counters "no slot has tries left" \
	"BOOT_A_LEFT=3 BOOT_B_LEFT=3 BOOT_ORDER=B A STRATA_B_VERSION=7 "
if grep -q "slot [AB] (" said.log; then
	echo "FAIL uboot/no_tries_left_boots_nothing: $(cat said.log)"
else
	echo "PASS uboot/no_tries_left_boots_nothing"
fi
# a slot's partitions are what it boots: a kernel partition that is missing
# is named, and the try is spent
sfdisk -q --delete disk.img 5 2> /dev/null # kernel_b (tools/bootdisk.sh)
power_on
if grep -q "slot B did not start" said.log; then
	echo "PASS uboot/missing_kernel_partition_spends_the_try"
else
	echo "FAIL uboot/missing_kernel_partition_spends_the_try: $(cat said.log)"
fi
