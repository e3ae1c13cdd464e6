#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_x86_64_nor (see tools/nor-flash.sh); the layout
# matches modules and qemu.sh: the rootfs NOR at 192 MiB, add-ons at 224 MiB.
ADDONS_BASE=234881024 exec "$(dirname "$0")/../../tools/nor-flash.sh"
