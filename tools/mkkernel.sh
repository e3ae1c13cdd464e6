#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds a board kernel from Debian's linux-source package: the config
# fragments (board/kernel.config, then the board's) merged onto allnoconfig
# with the kernel's own merge_config.sh, every symbol they ask for checked
# in the result, no modules. The result is kept in a cache outside the
# tree, keyed by the source package's version, the architecture, the
# fragments and this script, so another clone on the same machine (or
# another board with the same fragments) finds it built; LINK becomes a
# symlink to it, holding kernel, config, modules.builtin and .complete (the
# kernel release).
#
# usage: mkkernel.sh KERNEL_ARCH IMAGE LINK FRAGMENT...
#   KERNEL_ARCH: x86, arm64; IMAGE: the make target (bzImage, Image)
# env: CROSS_COMPILE (GNU prefix, empty natively), STRATA_CACHE (default
#   $XDG_CACHE_HOME/strata or ~/.cache/strata), JOBS (default: every core)
set -eu
arch=$1 image=$2 link=$3
shift 3
series=6.12
tarball=/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || { echo "mkkernel: $tarball missing (package linux-source-$series)" >&2; exit 1; }
fragments=""
for f in "$@"; do
	[ -f "$f" ] || { echo "mkkernel: no kernel config fragment '$f'" >&2; exit 1; }
	fragments="$fragments $(realpath "$f")"
done
[ -n "$fragments" ] || { echo "mkkernel: no kernel config fragment given" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' "linux-source-$series")
cache=${STRATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}
# shellcheck disable=SC2086 # paths of this tree, without spaces
key=$( (echo "$version $arch $image ${CROSS_COMPILE:-}"; cat $fragments "$0") | sha256sum | cut -c1-16)
dest=$cache/kernel/$(echo "$version" | tr '~:' '__')-$arch-$key

mkdir -p "$cache/kernel"
# one build of a kernel at a time (another clone, another board with the
# same fragments): the second waits and finds it built
exec 9> "$dest.lock"
flock 9
if [ ! -f "$dest/.complete" ]; then
	echo "  KERNEL  linux-source-$series $version, $arch (cache: $dest)"
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
	# shellcheck disable=SC2086
	(cd "$src" && "$@" scripts/kconfig/merge_config.sh -n -O "$bld" $fragments) > "$bld/merge.log" 2>&1 ||
		{ cat "$bld/merge.log" >&2; echo "mkkernel: merge_config.sh failed" >&2; exit 1; }
	# a symbol the fragment sets that the kernel's Kconfig did not take
	# (a missing dependency, a misspelt name) is an error, not a surprise at boot
	# shellcheck disable=SC2086
	missing=$(cat $fragments | grep -E '^CONFIG_[A-Z0-9_]+=' | while IFS= read -r want; do
		grep -qxF "$want" "$bld/.config" || echo "  $want (got: $(grep -E "^(# )?${want%%=*}[= ]" "$bld/.config" || echo nothing))"
	done)
	[ -z "$missing" ] || { printf 'mkkernel:%s ask for what the kernel did not take:\n%s\n' \
		"$fragments" "$missing" >&2; exit 1; }
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
