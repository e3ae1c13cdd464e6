#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# DIR/tree/usr/share/dmverity/blob for the dm-verity variants: 256 KiB of
# SHA-256 output, which squashfs stores as it is, so a test finds the bytes
# on the flash and changes one.
# usage: blob.sh DIR
set -euo pipefail
mkdir -p "$1/tree/usr/share/dmverity"
python3 -c '
import hashlib, sys
out = b"".join(hashlib.sha256(b"strata-dmverity-%d" % i).digest() for i in range(8192))
sys.stdout.buffer.write(out)' > "$1/tree/usr/share/dmverity/blob"
