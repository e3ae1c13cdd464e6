#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Reproducibility: builds BOARD again in another directory, at another time,
# and compares every image with the first build's, byte for byte; then
# checks that SOURCE_DATE_EPOCH is what dates them.
# usage: tests/repro.sh BOARD FIRST_O SECOND_O   (prints PASS/FAIL lines)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
board=$1 first=$2 second=$3
rm -rf "$second"
log="$second.log"
# the same inputs: the first build's signing key of the update bundle (its
# development key is its O's own)
key=()
[ ! -f "$first/dev-key/strata.sec" ] || key=(UPDATE_KEY="$first/dev-key/strata.sec")
if ! { make -C "$top" O="$second" "${board}_defconfig" && make -C "$top" O="$second" all "${key[@]}"; } \
	> "$log" 2>&1; then
	echo "FAIL repro/$board: the second build failed (log: $log)"
	exit 0
fi
differ=""
n=0
# shellcheck disable=SC2012 # the build's own file names
for f in $(cd "$first/images" && ls | sort); do
	n=$((n + 1))
	cmp -s "$first/images/$f" "$second/images/$f" || differ="$differ $f"
done
if [ $n -eq 0 ]; then
	echo "FAIL repro/$board: no images in $first/images"
elif [ -n "$differ" ]; then
	echo "FAIL repro/$board: images differ between two builds:$differ (diffoscope $first/images $second/images)"
else
	echo "PASS repro/$board: $n images byte-identical in two builds"
fi
# and the date in them is SOURCE_DATE_EPOCH's, not the clock's
epoch=$(($(date +%s) - 86400))
if SOURCE_DATE_EPOCH=$epoch make -C "$top" O="$second" all "${key[@]}" > "$log" 2>&1 &&
	[ "$(unsquashfs -fstime "$second/images/rootfs.squashfs")" = "$epoch" ] &&
	! cmp -s "$first/images/rootfs.squashfs" "$second/images/rootfs.squashfs"; then
	echo "PASS repro/$board: SOURCE_DATE_EPOCH=$epoch dates the root squashfs"
else
	echo "FAIL repro/$board: SOURCE_DATE_EPOCH=$epoch did not date the root squashfs (log: $log)"
fi
rm -rf "$second" "$log"
