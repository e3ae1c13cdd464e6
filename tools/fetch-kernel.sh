#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Downloads a Debian kernel package (following a meta package to the real one)
# and unpacks it into a cache directory with its modules.dep; the build host's
# own kernel is left alone.
# usage: fetch-kernel.sh PACKAGE[:ARCH] DESTDIR
set -eu
pkg=$1 dest=$2
[ -f "$dest/.complete" ] && exit 0

arch=${pkg#*:}
[ "$arch" = "$pkg" ] && arch=$(dpkg --print-architecture)
name=${pkg%%:*}
if [ "$arch" != "$(dpkg --print-architecture)" ] &&
	! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	dpkg --add-architecture "$arch"
	apt-get update -qq
fi
if ! apt-cache show "$name:$arch" >/dev/null 2>&1; then
	apt-get update -qq
fi
# a meta package (linux-image-6.12-amd64) depends on exactly one real image
real=$(apt-cache depends "$name:$arch" 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ { sub(/:.*/, "", $2); print $2; exit }')
[ -n "$real" ] || real=$name
echo "  KERNEL  $real ($arch)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$real:$arch" >/dev/null 2>&1) ||
	{ echo "fetch-kernel: cannot download $real:$arch" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$tmp"/*.deb "$dest"
kver=$(ls "$dest/lib/modules")
/sbin/depmod -b "$dest" "$kver"
image=$(ls "$dest"/boot/vmlinu* | head -n 1)
ln -sf "${image#"$dest"/}" "$dest/kernel"
echo "$kver" > "$dest/.complete"
