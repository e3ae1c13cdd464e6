#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "dmverity": the board's layers served through dm-verity
# (CONFIG_STRATA_VERITY_MODE="dm-verity": a hash tree after each layer image,
# its root hash in the manifest). The root gets /usr/share/dmverity/blob,
# 256 KiB of incompressible bytes that squashfs stores as they are, so a
# test finds them on the flash and changes one. The add-on layers of the
# "addons" variant come too, each with its own tree. No forward error
# correction here (the "fec" variant has it): a changed block is an error.
# usage: dmverity.sh DIR BOARD
set -euo pipefail
"$(dirname "$0")/blob.sh" "$1"
echo "CONFIG_STRATA_VERITY_MODE=dm-verity"
echo "CONFIG_STRATA_DMVERITY_FEC_ROOTS=0"
"$(dirname "$0")/addons.sh" "$1/addons" "$2"
echo "OVERLAYS=$1/tree"
