#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_aarch64_virt (see tools/nor-flash.sh); the layout
# matches modules and qemu.sh: the rootfs NOR at 0x5c000000, add-ons at 0x5e000000.
ADDONS_BASE=1577058304 exec "$(dirname "$0")/../../tools/nor-flash.sh"
