#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Makes a signed update bundle (the format is in init/lib/bundle.h): the
# signify signature of the header, the header (board, version, each image's
# name, size and SHA-256), then the images in that order.
# usage: tools/mkbundle.sh -k SECRET_KEY -c COMPATIBLE -v VERSION -o OUT NAME=FILE...
#        tools/mkbundle.sh --new-key DIR   (a development key pair without a
#        passphrase: DIR/strata.sec, DIR/strata.pub; kept when it exists)
set -euo pipefail
signify="signify-openbsd"
command -v "$signify" >/dev/null || signify=signify
if ! command -v "$signify" >/dev/null; then
	echo "mkbundle: signify-openbsd not installed (make deps)" >&2
	exit 1
fi
if [ "${1:-}" = --new-key ]; then
	dir=$2
	mkdir -p "$dir"
	if [ ! -f "$dir/strata.sec" ]; then
		"$signify" -G -n -c "strata development key" -p "$dir/strata.pub" -s "$dir/strata.sec"
	fi
	exit 0
fi
key="" compatible="" version="" out=""
while getopts k:c:v:o: opt; do
	case $opt in
	k) key=$OPTARG ;;
	c) compatible=$OPTARG ;;
	v) version=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$key" ] || [ -z "$compatible" ] || [ -z "$version" ] || [ -z "$out" ] || [ $# -eq 0 ]; then
	echo "usage: $0 -k SECRET_KEY -c COMPATIBLE -v VERSION -o OUT NAME=FILE..." >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo "strata-bundle 1"
	echo "compatible $compatible"
	echo "version $version"
	for img in "$@"; do
		name=${img%%=*} file=${img#*=}
		[ -f "$file" ] || { echo "mkbundle: $name: no file '$file'" >&2; exit 1; }
		echo "image $name $(stat -c %s "$file") $(sha256sum < "$file" | cut -d' ' -f1)"
	done
	echo "end"
} > "$tmp/header"
"$signify" -S -s "$key" -m "$tmp/header" -x "$tmp/header.sig"
files=()
for img in "$@"; do files+=("${img#*=}"); done
cat "$tmp/header.sig" "$tmp/header" "${files[@]}" > "$out.tmp"
mv "$out.tmp" "$out"
