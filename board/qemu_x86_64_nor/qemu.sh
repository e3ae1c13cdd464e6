# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2034,SC2154 # sets board_qemu and board_cmdline for, and reads here and initramfs of, start-qemu.sh
# QEMU line of qemu_x86_64_nor, sourced by start-qemu.sh with $here set to
# the images directory. The NOR image sits in RAM reserved by memmap= at
# 192 MiB, as large as flash-rootfs.bin (32 MiB, or a larger root's size
# without add-ons: flash.sh); the init declares it to phram (modules).
root_bytes=$(stat -L -c %s "$here/flash-rootfs.bin")
mem=$(((0xc000000 + root_bytes) / 1048576 + 32))
[ "$mem" -ge 256 ] || mem=256
board_qemu=(qemu-system-x86_64 -M pc -smp 2 -m "$mem" -nographic -no-user-config -nic none
	-kernel "$here/kernel" -initrd "$initramfs"
	-device "loader,file=$here/flash-rootfs.bin,addr=0xc000000,force-raw=on"
	-drive "file=$here/flash-data.bin,if=virtio,format=raw"
	-drive "file=$here/flash-log.bin,if=virtio,format=raw")
board_cmdline="console=ttyS0 quiet panic=-1 memmap=$((root_bytes / 1048576))M\$0xc000000"
# add-on layers: a second NOR region (its phram partitions: modules)
if [ -f "$here/flash-addons.bin" ]; then
	board_qemu+=(-device "loader,file=$here/flash-addons.bin,addr=0xe000000,force-raw=on")
	board_cmdline+=" memmap=16M\$0xe000000"
fi
