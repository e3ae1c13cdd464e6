#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Writes the layer manifest (/etc/strata/manifest in the initramfs): each
# layer image's length and fs-verity digest (sha256, 4096-byte blocks, no
# salt) as `fsverity digest` computes it, in the order given; or, for an
# image with a dm-verity tree appended (IMAGE.dm-verity beside it), the data
# length, root hash and salt of that tree.
# usage: mkmanifest.sh OUT NAME=IMAGE[:optional]...
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT NAME=IMAGE[:optional]..." >&2; exit 2; }
out=$1
shift
{
	echo "strata-manifest 1"
	echo "# layer NAME BYTES FS-VERITY-DIGEST [optional]"
	echo "# dm-verity NAME BYTES ROOT-HASH SALT [fec=ROOTS] [optional]"
	for spec in "$@"; do
		name=${spec%%=*}
		img=${spec#*=}
		opt=""
		case "$img" in *:optional) img=${img%:optional}; opt=" optional" ;; esac
		[ -f "$img" ] || { echo "mkmanifest: layer '$name': no image '$img'" >&2; exit 1; }
		if [ -f "$img.dm-verity" ]; then
			# BYTES ROOT SALT of the hash tree after the image's data (mkimages.sh)
			echo "dm-verity $name $(cat "$img.dm-verity")$opt"
			continue
		fi
		digest=$(fsverity digest --compact --hash-alg=sha256 --block-size=4096 "$img")
		echo "layer $name $(stat -L -c %s "$img") $digest$opt"
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
