# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2034,SC2154 # sets board_qemu and board_cmdline for, and reads here and initramfs of, start-qemu.sh
# QEMU line of qemu_x86_64_nand, sourced by start-qemu.sh with $here set to
# the images directory.
board_qemu=(qemu-system-x86_64 -M pc -smp 2 -m 256 -nographic -no-user-config -nic none
	-kernel "$here/kernel" -initrd "$initramfs"
	-drive "file=$here/flash-data.bin,if=virtio,format=raw")
board_cmdline='console=ttyS0 quiet panic=-1'
