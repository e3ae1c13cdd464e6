#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The update bundle a board's build makes (images/update.bundle), over a
# build of qemu_x86_64_nor that tests/run.sh made: its header's signature
# checks out with the public key in the root, with signify-openbsd; it names
# the board and the build's version, as the root's /etc/strata/version does;
# its images are the board's update.conf's (boot: an ext2 holding the
# build's kernel and initramfs; rootfs: the root squashfs); the build said
# it signed with the development key. Then the same build with a key of the
# builder's (UPDATE_KEY=): the root gets that key and the bundle verifies
# with it alone, and the build says nothing of a development key.
# Prints PASS/FAIL lines.
# usage: tests/bundle.sh O BUILD_LOG WORKDIR   (O: the board's build)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
o=$1 log=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
pass() { echo "PASS bundle/$1"; }
fail() { echo "FAIL bundle/$1: $2"; }
board=qemu_x86_64_nor

# the bundle's parts: its signature (2 lines), its header (to "end"), image NAME
split() { # BUNDLE DIR
	mkdir -p "$2"
	head -n 2 "$1" > "$2/sig"
	sed -n '3,/^end$/p;/^end$/q' "$1" > "$2/header"
	local at size name
	at=$(($(stat -c %s "$2/sig") + $(stat -c %s "$2/header")))
	while read -r _ name size _; do
		tail -c +$((at + 1)) "$1" | head -c "$size" > "$2/$name"
		at=$((at + size))
	done < <(grep '^image ' "$2/header")
}
verifies() { # PUBLIC_KEY DIR
	signify-openbsd -V -q -p "$1" -x "$2/sig" -m "$2/header" 2> /dev/null
}
root_file() { # O PATH: a file of the root squashfs
	unsquashfs -cat "$1/images/rootfs.squashfs" "$2" 2> /dev/null
}

# ---- the development key's bundle ---------------------------------------------
b=$o/images/update.bundle
if [ ! -f "$b" ]; then
	fail exists "no $b"
	exit 0
fi
pass exists
split "$b" "$work/dev"
root_file "$o" etc/strata/keys/strata.pub > "$work/root.pub"
if ! cmp -s "$work/root.pub" "$o/dev-key/strata.pub"; then
	fail root-has-key "the root's /etc/strata/keys/strata.pub is not $o/dev-key/strata.pub"
elif ! verifies "$work/root.pub" "$work/dev"; then
	fail signature "signify-openbsd -V: the header's signature does not verify with the root's key"
else
	pass signature
fi
# the build's version, as the Makefile has it
version=$(cd "$top" && git describe --always --dirty 2> /dev/null || echo unknown)
got_version=$(root_file "$o" etc/strata/version)
if ! grep -qx "compatible $board" "$work/dev/header"; then
	fail compatible "no 'compatible $board' in: $(tr '\n' ' ' < "$work/dev/header")"
elif [ -z "$version" ] || ! grep -qx "version $version" "$work/dev/header"; then
	fail version "no 'version $version' (the build's) in: $(tr '\n' ' ' < "$work/dev/header")"
elif [ "$got_version" != "$version" ]; then
	fail version "the root's /etc/strata/version is '$got_version', the build's $version"
else
	pass "names-board-and-version ($board $version)"
fi
conf=$(root_file "$o" etc/strata/update.conf)
names=$(grep '^image ' "$work/dev/header" | cut -d' ' -f2 | tr '\n' ' ')
want=$(awk '$1 == "slot" && !seen[$3]++ { printf "%s ", $3 }' "$top/board/$board/update.conf")
if ! grep -qx "compatible $board" <<<"$conf" || ! grep -qx "slot B rootfs mtd:rootfs_b" <<<"$conf"; then
	fail root-update-conf "the root's /etc/strata/update.conf: $(tr '\n' ' ' <<<"$conf")"
elif [ "$names" != "$want" ]; then
	fail images "the bundle's images are '$names', update.conf's '$want'"
elif ! cmp -s "$work/dev/rootfs" "$o/images/rootfs.squashfs"; then
	fail images "the bundle's rootfs is not images/rootfs.squashfs"
else
	debugfs -R "dump /kernel $work/kernel" "$work/dev/boot" > /dev/null 2>&1
	debugfs -R "dump /initramfs $work/initramfs" "$work/dev/boot" > /dev/null 2>&1
	if cmp -s "$work/kernel" "$o/images/kernel" &&
		cmp -s "$work/initramfs" "$(ls "$o"/images/initramfs.cpio*)"; then
		pass "images (${names% }: the boot ext2 holds the build's kernel and initramfs)"
	else
		fail images "the bundle's boot ext2 lacks the build's /kernel or /initramfs"
	fi
fi
if grep -q "update.bundle is signed with the development key $o/dev-key/strata.sec, not for release" "$log"; then
	pass development-key-said
else
	fail development-key-said "no development key line in $log"
fi

# ---- a key of the builder's -----------------------------------------------------
# the same build (no compiler, no kernel: its build directory is copied)
o2=$work/out
mkdir -p "$o2" "$work/key"
cp -a "$o/.config" "$o/build" "$o2/"
"$top/tools/mkbundle.sh" --new-key "$work/key" &&
	mv "$work/key/strata.sec" "$work/key/release.sec" && mv "$work/key/strata.pub" "$work/key/release.pub"
if ! make -C "$top" O="$o2" UPDATE_KEY="$work/key/release.sec" all > "$work/builder.log" 2>&1; then
	fail builder-key "make all UPDATE_KEY=... failed: $(tail -n 3 "$work/builder.log" | tr '\n' ' ')"
	exit 0
fi
split "$o2/images/update.bundle" "$work/builder"
root_file "$o2" etc/strata/keys/release.pub > "$work/release.pub"
if ! cmp -s "$work/release.pub" "$work/key/release.pub"; then
	fail builder-key "the root has no /etc/strata/keys/release.pub, the builder's key"
elif root_file "$o2" etc/strata/keys/strata.pub > /dev/null; then
	fail builder-key "the root still has the development key"
elif ! verifies "$work/key/release.pub" "$work/builder"; then
	fail builder-key "the bundle does not verify with the builder's key"
elif verifies "$o/dev-key/strata.pub" "$work/builder"; then
	fail builder-key "the bundle verifies with the development key"
elif grep -q "development key" "$work/builder.log"; then
	fail builder-key "the build still speaks of a development key: $(grep "development key" "$work/builder.log")"
else
	pass builder-key
fi
rm -rf "$o2"
