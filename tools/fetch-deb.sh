#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Downloads one Debian package (of any architecture) from the machine's own
# package sources and unpacks it into a cache directory, without installing
# it: a foreign busybox-static would replace the host's own /bin/busybox.
# usage: fetch-deb.sh PACKAGE:ARCH DESTDIR
set -eu
pkg=$1 dest=$2
[ -f "$dest/.complete" ] && exit 0
echo "  FETCH   $pkg"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
	echo "fetch-deb: cannot download $pkg (is its architecture in dpkg --print-foreign-architectures?)" >&2
	exit 1
}
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$tmp"/*.deb "$dest"
dpkg-deb -f "$tmp"/*.deb Version > "$dest/.complete"
