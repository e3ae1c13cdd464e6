#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Assembles $BUILD/rootfs, the tree of the root squashfs: the builder's root
# (ROOTFS: a directory or tarball) as it is, or the built-in busybox root with
# its own overlays (BUILTIN_OVERLAYS: the test root's accounts, inittab, rcS);
# then the builder's overlays (OVERLAYS, over either) and /sbin/strata with
# OpenWrt's names for it; on a board with an update.conf (UPDATE_CONF), what
# strata update reads: /etc/strata/update.conf, the public key of UPDATE_KEY
# in /etc/strata/keys/ and the build's VERSION in /etc/strata/version.
# Called by the Makefile (make rootfs, make all) with its variables in the
# environment; tools/mkimages.sh squashes the tree.
set -euo pipefail
: "${TOPDIR:?}" "${BUILD:?}" "${STRATA_BIN:?}" "${BUSYBOX:?}"
: "${ROOTFS:=}" "${OVERLAYS:=}" "${BUILTIN_OVERLAYS:=}"
: "${UPDATE_CONF:=}" "${UPDATE_KEY:=}" "${VERSION:=unknown}" "${BOARD:=}"
# shellcheck source=tools/build-lib.sh
. "$TOPDIR/tools/build-lib.sh"

# The host path of PATH inside TREE, symlinks resolved as the booted system
# resolves them: an absolute target starts again at the tree's top and ".."
# stops there. A root's /sbin -> /usr/sbin must not send the build's writes
# to the host's /usr/sbin.
in_root() { # TREE PATH
	local tree=$1 rest=$2 cur="" comp link hops=0
	while [ -n "$rest" ]; do
		comp=${rest%%/*}
		if [ "$comp" = "$rest" ]; then rest=""; else rest=${rest#*/}; fi
		case "$comp" in
		"" | .) continue ;;
		..) cur=${cur%/*}; continue ;;
		esac
		if [ -L "$tree$cur/$comp" ]; then
			hops=$((hops + 1))
			[ $hops -le 40 ] || die "'/$2' in $root_name: too many levels of symbolic links"
			link=$(readlink "$tree$cur/$comp")
			case "$link" in /*) cur="" ;; esac
			rest=$link${rest:+/$rest}
		else
			cur=$cur/$comp
		fi
	done
	echo "$tree$cur"
}

is_dir() { [ -d "$1" ] && [ ! -L "$1" ]; }
kind() { # PATH: what it is, for a message
	if [ -L "$1" ]; then echo "a symlink to '$(readlink "$1")'"
	elif [ -d "$1" ]; then echo "a directory"
	elif [ -f "$1" ]; then echo "a file"
	else echo "a special file"; fi
}

# Lays overlay directory OV over the tree. An entry of the overlay meets the
# tree's entry of the same path as its kind: a directory merges into a
# directory, anything else replaces a non-directory (a symlink of the root
# is replaced, never written through). The other two meetings, a directory
# over a file or symlink and a file or symlink over a directory, are the
# builder's to resolve: cp would stop half-way, or merge into wherever the
# root's symlink points. Every entry is checked before anything is copied.
overlay() { # OV VARIABLE (the make variable that names OV)
	local ov rel src dst
	ov=$(abspath "$1")
	[ -d "$ov" ] || die "overlay directory '$1' does not exist (from $2)"
	while IFS= read -r -d '' rel; do
		src=$ov/$rel dst=$rootfs/$rel
		[ -e "$dst" ] || [ -L "$dst" ] || continue
		if is_dir "$src"; then
			is_dir "$dst" && continue
		else
			is_dir "$dst" || continue
		fi
		die "overlay '$1/$rel' is $(kind "$src") where $root_name has '/$rel' as" \
			"$(kind "$dst"); an overlay cannot turn a directory into a non-directory or the" \
			"reverse: take '$1' out of $2, or change the overlay or the root"
	done < <(find "$ov" -mindepth 1 -printf '%P\0')
	step OVERLAY "${ov#"$TOPDIR"/}"
	cp -a --no-preserve=ownership --remove-destination "$ov/." "$rootfs/"
}

mkdir -p "$BUILD"
rootfs="$BUILD/rootfs"
rm -rf "$rootfs"
mkdir -p "$rootfs"
if [ -n "$ROOTFS" ]; then
	root_name="the root (ROOTFS '$ROOTFS')"
	step ROOTFS "$ROOTFS"
	unpack_tree ROOTFS "$ROOTFS" "$rootfs"
	# the built-in root's overlays (BUILTIN_OVERLAYS) are the test root's own files:
	# a root of its own keeps its accounts, inittab and init scripts
else
	root_name="the built-in busybox root"
	applets="$BUILD/busybox.applets"
	busybox_applets "$applets"
	mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,dev,proc,sys,run,tmp,root,lib,mnt}
	chmod 1777 "$rootfs/tmp"
	chmod 0700 "$rootfs/root"
	step ROOTFS "busybox $(grep -aom1 'BusyBox v[0-9.]*' "$BUSYBOX" | head -n 1 | cut -c9-)"
	install -m 0755 "$BUSYBOX" "$rootfs/bin/busybox"
	sort "$applets" | while read -r applet; do
		[ -e "$rootfs/$applet" ] && continue
		depth=$(($(tr -cd / <<<"$applet" | wc -c)))
		rel=$(printf '../%.0s' $(seq 1 "$depth"))bin/busybox
		ln -s "$rel" "$rootfs/$applet"
	done
	for ov in $BUILTIN_OVERLAYS; do
		overlay "$ov" "CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS"
	done
fi
for ov in $OVERLAYS; do
	overlay "$ov" "OVERLAYS (Kconfig STRATA_OVERLAYS)"
done

# where the init mounts and what it installs, through the root's own links
# (a merged /usr root has /sbin -> usr/sbin)
for dir in sbin dev proc sys run; do
	path=$(in_root "$rootfs" "$dir")
	mkdir -p "$path"
done
sbin=$(in_root "$rootfs" sbin)
install -m 0755 "$STRATA_BIN" "$sbin/strata"
# OpenWrt's names: fstools' programs and base-files' firstboot are replaced
# (left in place, fstools' jffs2reset would empty the mounted data flash)
# (init/cmd/openwrt_names.def: the dispatcher's list)
names=$(sed -n 's/^OPENWRT_NAME.\([a-z0-9_]*\),.*/\1/p' "$TOPDIR/init/cmd/openwrt_names.def")
for name in $names; do
	rm -f "$sbin/$name"
	ln -s strata "$sbin/$name"
done

# what strata update reads (docs/updates.md): the board's slots, after the
# compatible line that names the board; the key that checks its bundles
if [ -n "$UPDATE_CONF" ]; then
	! grep -q '^[[:space:]]*compatible[[:space:]]' "$UPDATE_CONF" ||
		die "$UPDATE_CONF: no compatible line, please: the build writes 'compatible $BOARD'"
	pub=$(update_pub "$UPDATE_KEY")
	etc=$(in_root "$rootfs" etc/strata)
	mkdir -p "$etc/keys"
	step UPDATE "/etc/strata/update.conf, keys/$(basename "$pub"), version $VERSION"
	{
		echo "# strata update: board/$BOARD/update.conf (docs/updates.md)"
		echo "compatible $BOARD"
		cat "$UPDATE_CONF"
	} > "$etc/update.conf"
	install -m 0644 "$pub" "$etc/keys/$(basename "$pub")"
	echo "$VERSION" > "$etc/version"
	chmod 0644 "$etc/update.conf" "$etc/version"
	# an OpenWrt root: sysupgrade installs bundles into the other slot, and
	# procd's end of boot marks the booted slot good (overlays/examples/procd)
	upgrade=$(in_root "$rootfs" lib/upgrade)
	if [ -d "$upgrade" ] && [ -f "$upgrade/common.sh" ]; then
		ex=$TOPDIR/overlays/examples/procd
		step UPDATE "OpenWrt: /lib/upgrade/strata.sh, /etc/init.d/strata-mark-good (enabled)"
		install -m 0644 "$ex/lib/upgrade/strata.sh" "$upgrade/strata.sh"
		initd=$(in_root "$rootfs" etc/init.d)
		mkdir -p "$initd" "$(in_root "$rootfs" etc/rc.d)"
		install -m 0755 "$ex/etc/init.d/strata-mark-good" "$initd/strata-mark-good"
		ln -sfn ../init.d/strata-mark-good "$(in_root "$rootfs" etc/rc.d)/S99strata-mark-good"
	fi
fi
init=$(in_root "$rootfs" sbin/init)
[ -e "$init" ] || echo "mkrootfs: warning: $root_name has no /sbin/init (set STRATA_INIT)" >&2
