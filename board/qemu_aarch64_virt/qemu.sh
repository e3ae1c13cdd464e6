# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2034,SC2154 # sets board_qemu and board_cmdline for, and reads here and initramfs of, start-qemu.sh
# QEMU line of qemu_aarch64_virt, sourced by start-qemu.sh with $here set to
# the images directory. The virt machine's RAM starts at 0x40000000; mem=448M
# keeps the kernel below 0x5c000000, and the NOR images sit above that.
# Debian's arm64 kernel image is a plain Image, which -kernel boots as is.
board_qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 2 -m 512 -nographic
	-no-user-config -nic none
	-kernel "$here/kernel" -initrd "$initramfs"
	-device "loader,file=$here/flash-rootfs.bin,addr=0x5c000000,force-raw=on"
	-drive "file=$here/flash-data.bin,if=virtio,format=raw"
	-drive "file=$here/flash-log.bin,if=virtio,format=raw")
board_cmdline='console=ttyAMA0 quiet panic=-1 mem=448M'
# add-on layers: a second NOR region (its phram partitions: modules)
if [ -f "$here/flash-addons.bin" ]; then
	board_qemu+=(-device "loader,file=$here/flash-addons.bin,addr=0x5e000000,force-raw=on")
fi
