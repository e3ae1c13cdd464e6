#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "fec": the root served through dm-verity with the default
# forward error correction (CONFIG_STRATA_DMVERITY_FEC_ROOTS=2: Reed-Solomon
# parity after the hash tree). The root gets /usr/share/dmverity/blob, as in
# the "dmverity" variant, so a test finds its bytes on the flash and flips one.
# usage: fec.sh DIR BOARD
set -euo pipefail
mkdir -p "$1/tree/usr/share/dmverity"
python3 -c '
import hashlib, sys
out = b"".join(hashlib.sha256(b"strata-dmverity-%d" % i).digest() for i in range(8192))
sys.stdout.buffer.write(out)' > "$1/tree/usr/share/dmverity/blob"
echo "CONFIG_STRATA_VERITY_MODE=dm-verity"
echo "CONFIG_STRATA_ROOTFS_OVERLAYS=overlays/rootfs $1/tree"
