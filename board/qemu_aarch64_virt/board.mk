# SPDX-License-Identifier: GPL-2.0-only
# qemu_aarch64_virt: a NOR-flash router on 64-bit Arm, emulated (QEMU virt).
#   rootfs      memory-mapped NOR (phram over RAM that mem= leaves to it), squashfs
#   rootfs_data block2mtd over a virtio disk (persistent), jffs2
BOARD_ARCH := aarch64
BOARD_KERNEL_PKG := linux-image-6.12-arm64
# Debian's arm64 kernel builds neither phram nor block2mtd (nor any other MTD
# driver QEMU's virt machine could feed): both come from the linux-source
# package of the same version.
BOARD_KERNEL_EXTRA_MODULES := drivers/mtd/devices/phram drivers/mtd/devices/block2mtd
BOARD_BUSYBOX_PKG := busybox-static
