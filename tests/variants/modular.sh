#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "modular": the board on Debian's kernel image package, its
# modules (.ko, .ko.xz) in the initramfs and loaded by the init, instead of
# the board kernel with everything built in. usage: modular.sh DIR BOARD
set -euo pipefail
echo "KERNEL=modular"
