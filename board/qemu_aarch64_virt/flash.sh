#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_aarch64_virt (see tools/nor-flash.sh); the layout
# matches qemu.sh: the rootfs NOR at 0x5c000000, add-ons at 0x5e000000.
ROOTFS_BASE=1543503872 ADDONS_BASE=1577058304 exec "$(dirname "$0")/../../tools/nor-flash.sh"
