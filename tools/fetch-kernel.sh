#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Downloads a Debian kernel package of any architecture (following a meta
# package to the real one) and unpacks it into a cache directory with its
# modules.dep; the build host's own kernel is left alone.
#
# EXTRA_MODULE arguments (paths below the kernel tree without .c, e.g.
# drivers/mtd/devices/block2mtd) are modules the package does not build for
# that architecture: they are compiled out of tree from the linux-source
# package of exactly the same version, against that version's headers, with
# $KERNEL_CROSS (a GNU cross compiler prefix, empty natively) for
# ARCH=$KERNEL_ARCH, and installed under updates/. They are not signed:
# loading them taints the kernel, which is fine for test boards.
#
# usage: fetch-kernel.sh PACKAGE DEBIAN_ARCH DESTDIR [EXTRA_MODULE...]
set -eu
pkg=$1 arch=$2 dest=$3
shift 3
[ -f "$dest/.complete" ] && exit 0

# a meta package (linux-image-6.12-amd64) depends on exactly one real image
real=$(apt-cache depends "$pkg:$arch" 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ { sub(/:.*/, "", $2); print $2; exit }')
[ -n "$real" ] || real=$pkg
echo "  KERNEL  $real ($arch)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
download() { # PACKAGE[:ARCH][=VERSION]...
	(cd "$tmp" && apt-get download -q "$@" >/dev/null 2>&1) ||
		{ echo "fetch-kernel: cannot download $*" >&2; exit 1; }
}
download "$real:$arch"
rm -rf "$dest"
mkdir -p "$dest"
deb=$(ls "$tmp"/*.deb)
dpkg-deb -x "$deb" "$dest"
version=$(dpkg-deb -f "$deb" Version)
rm -f "$deb"
kver=$(ls "$dest/lib/modules")

if [ $# -gt 0 ]; then
	: "${KERNEL_ARCH:?}"
	echo "  MODULES $* (linux-source $version)"
	series=$(echo "$kver" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')   # 6.12
	abi=${kver%-*}                                                # 6.12.118+deb12
	download "linux-source-$series=$version" "linux-headers-$kver:$arch" \
		"linux-headers-$abi-common=$version" "linux-kbuild-$abi=$version"
	root="$tmp/root"
	mkdir -p "$root" "$tmp/src" "$tmp/mod"
	for d in "$tmp"/linux-headers-*.deb "$tmp"/linux-kbuild-*.deb; do dpkg-deb -x "$d" "$root"; done
	hdr="$root/usr/src/linux-headers-$kver"
	# the headers' Makefile includes the common half by its installed path
	echo "include $root/usr/src/linux-headers-$abi-common/Makefile" > "$hdr/Makefile"
	members=""
	for m in "$@"; do members="$members linux-source-$series/$m.c"; done
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" | xz -dc |
		tar -x -C "$tmp/src" $members
	objs=""
	for m in "$@"; do
		cp "$tmp/src/linux-source-$series/$m.c" "$tmp/mod/"
		objs="$objs $(basename "$m").o"
	done
	echo "obj-m :=$objs" > "$tmp/mod/Kbuild"
	# no BTF for out-of-tree modules: it needs pahole and is optional; and
	# nothing of the calling make (O=, KCONFIG_CONFIG) reaches the kernel's
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KCONFIG_CONFIG -u O \
		make -s -C "$hdr" M="$tmp/mod" ARCH="$KERNEL_ARCH" CROSS_COMPILE="${KERNEL_CROSS:-}" \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules >/dev/null
	mkdir -p "$dest/lib/modules/$kver/updates"
	for m in "$@"; do
		install -m 0644 "$tmp/mod/$(basename "$m").ko" "$dest/lib/modules/$kver/updates/"
	done
fi

/sbin/depmod -b "$dest" "$kver"
image=$(find "$dest"/boot -maxdepth 1 -name "vmlinu*" | sort | head -n 1)
ln -sf "${image#"$dest"/}" "$dest/kernel"
echo "$kver" > "$dest/.complete"
