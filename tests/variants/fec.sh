#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "fec": the root served through dm-verity with the default
# forward error correction (CONFIG_STRATA_DMVERITY_FEC_ROOTS=2: Reed-Solomon
# parity after the hash tree). The root gets /usr/share/dmverity/blob, as in
# the "dmverity" variant, so a test finds its bytes on the flash and flips one.
# usage: fec.sh DIR BOARD
set -euo pipefail
"$(dirname "$0")/blob.sh" "$1"
echo "CONFIG_STRATA_VERITY_MODE=dm-verity"
echo "OVERLAYS=$1/tree"
