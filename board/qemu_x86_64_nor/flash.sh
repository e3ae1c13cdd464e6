#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_x86_64_nor (see tools/nor-flash.sh); the layout
# matches qemu.sh: the rootfs NOR at 192 MiB, add-ons at 224 MiB; qemu.sh
# takes the region's size from flash-rootfs.bin, so a root larger than
# 32 MiB grows it (then without add-ons, whose region would overlap).
ROOTFS_GROWS=y ROOTFS_BASE=201326592 ADDONS_BASE=234881024 exec "$(dirname "$0")/../../tools/nor-flash.sh"
