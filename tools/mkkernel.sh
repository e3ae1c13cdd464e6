#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds a board kernel from Debian's linux-source package: the board's
# config fragment merged onto allnoconfig with the kernel's own
# merge_config.sh, every symbol it asks for checked in the result, no
# modules. The result is kept in a cache outside the tree, keyed by the
# source package's version, the architecture, the fragment and this script,
# so another clone on the same machine (or another board with the same
# fragment) finds it built; LINK becomes a symlink to it, holding kernel,
# config, modules.builtin and .complete (the kernel release).
#
# usage: mkkernel.sh KERNEL_ARCH IMAGE FRAGMENT LINK
#   KERNEL_ARCH: x86, arm64; IMAGE: the make target (bzImage, Image)
# env: CROSS_COMPILE (GNU prefix, empty natively), STRATA_CACHE (default
#   $XDG_CACHE_HOME/strata or ~/.cache/strata), JOBS (default: every core)
set -eu
arch=$1 image=$2 fragment=$3 link=$4
series=6.12
tarball=/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || { echo "mkkernel: $tarball missing (package linux-source-$series)" >&2; exit 1; }
[ -f "$fragment" ] || { echo "mkkernel: no kernel config fragment '$fragment'" >&2; exit 1; }
fragment=$(realpath "$fragment")
version=$(dpkg-query -W -f='${Version}' "linux-source-$series")
cache=${STRATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}
key=$( (echo "$version $arch $image ${CROSS_COMPILE:-}"; cat "$fragment" "$0") | sha256sum | cut -c1-16)
dest=$cache/kernel/$(echo "$version" | tr '~:' '__')-$arch-$key

if [ ! -f "$dest/.complete" ]; then
	echo "  KERNEL  linux-source-$series $version, $arch, $(basename "$(dirname "$fragment")")/$(basename "$fragment") (cache: $dest)"
	src=$cache/src/linux-source-$(echo "$version" | tr '~:' '__')
	if [ ! -f "$src/.complete" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		xz -dc "$tarball" | tar -x -C "$src" --strip-components=1
		touch "$src/.complete"
	fi
	bld=$dest.build
	rm -rf "$bld" "$dest"
	mkdir -p "$bld"
	# nothing of the calling make (O=, KCONFIG_CONFIG, -j) reaches the kernel's;
	# the build's identity is fixed for every machine with this source package
	set -- env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KCONFIG_CONFIG -u O \
		ARCH="$arch" CROSS_COMPILE="${CROSS_COMPILE:-}" KBUILD_BUILD_USER=strata \
		KBUILD_BUILD_HOST=strata KBUILD_BUILD_VERSION=1 \
		KBUILD_BUILD_TIMESTAMP="$(date -u -R -r "$tarball")"
	(cd "$src" && "$@" scripts/kconfig/merge_config.sh -n -O "$bld" "$fragment") > "$bld/merge.log" 2>&1 ||
		{ cat "$bld/merge.log" >&2; echo "mkkernel: merge_config.sh failed" >&2; exit 1; }
	# a symbol the fragment sets that the kernel's Kconfig did not take
	# (a missing dependency, a misspelt name) is an error, not a surprise at boot
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment" | while IFS= read -r want; do
		grep -qxF "$want" "$bld/.config" || echo "  $want (got: $(grep -E "^(# )?${want%%=*}[= ]" "$bld/.config" || echo nothing))"
	done)
	[ -z "$missing" ] || { printf 'mkkernel: %s asks for what the kernel did not take:\n%s\n' \
		"$fragment" "$missing" >&2; exit 1; }
	"$@" make -s -C "$src" O="$bld" -j"${JOBS:-$(nproc)}" "$image" > "$bld/build.log" 2>&1 ||
		{ tail -n 30 "$bld/build.log" >&2; echo "mkkernel: kernel build failed (log: $bld/build.log)" >&2; exit 1; }
	mkdir -p "$dest.new"
	cp "$bld/arch/$arch/boot/$image" "$dest.new/kernel"
	cp "$bld/.config" "$dest.new/config"
	cp "$bld/modules.builtin" "$dest.new/modules.builtin"
	"$@" make -s -C "$src" O="$bld" kernelrelease > "$dest.new/.complete"
	rm -rf "$bld"
	mv "$dest.new" "$dest"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$dest" "$link"
