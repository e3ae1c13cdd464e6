# SPDX-License-Identifier: GPL-2.0-only
# qemu_x86_64_emmc: an eMMC device, emulated by one GPT virtio disk.
#   meta   the metadata squashfs (trusted.overlay.metacopy/redirect per file),
#          measured against the initramfs manifest
#   data   ext4 (4 KiB blocks, -O verity), or f2fs (-O extra_attr,verity) with
#          qemu_x86_64_emmc_f2fs_defconfig: objects/ (the fs-verity object
#          store, a data-only lower layer) and the upper generations
BOARD_ARCH := x86_64
BOARD_KERNEL_PKG := linux-image-6.12-amd64
BOARD_BUSYBOX := /bin/busybox
# the root image the manifest pins (flash.sh writes it)
export ROOT_IMAGE := meta.squashfs
