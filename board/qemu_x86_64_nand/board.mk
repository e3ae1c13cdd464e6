# SPDX-License-Identifier: GPL-2.0-only
# qemu_x86_64_nand: a NAND/UBI router, emulated.
#   one flash "ubi" (block2mtd over a virtio disk, 128 KiB erase blocks) with UBI:
#   rootfs       static volume with the squashfs, mounted through ubiblock
#   rootfs_data  dynamic volume with ubifs, created on first boot when missing
BOARD_ARCH := x86_64
BOARD_KERNEL_PKG := linux-image-6.12-amd64
BOARD_BUSYBOX := /bin/busybox
