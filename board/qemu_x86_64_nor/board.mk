# SPDX-License-Identifier: GPL-2.0-only
# qemu_x86_64_nor: a NOR-flash router, emulated.
#   rootfs      memory-mapped NOR (phram over RAM reserved with memmap=), squashfs
#   rootfs_data block2mtd over a virtio disk (persistent), jffs2
BOARD_ARCH := x86_64
BOARD_KERNEL_PKG := linux-image-6.12-amd64
BOARD_BUSYBOX := /bin/busybox
