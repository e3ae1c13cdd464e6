#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host checks of mkverity on a synthetic tree: objects named by their fs-verity
# digest and stored once, metadata with the overlay xattrs, every kind of entry
# kept, byte-identical images from the same tree. Needs root (trusted.* xattrs).
# Prints PASS/FAIL lines.
# usage: tests/mkverity.sh MKVERITY WORKDIR
set -uo pipefail
mkverity=$1 work=$2
check() { # name command...
	local name=$1
	shift
	if out=$("$@" 2>&1); then echo "PASS mkverity/$name"; else echo "FAIL mkverity/$name: $out"; fi
}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP mkverity/all: needs root for trusted.* xattrs"
	exit 0
fi
rm -rf "$work"
mkdir -p "$work/root/etc/sub" "$work/root/empty-dir"
cd "$work" || exit 1
echo same > root/a
echo same > root/etc/sub/b
head -c 1048577 /dev/urandom > root/big
ln root/a root/hardlink
ln -s ../a root/etc/link
mkfifo root/fifo
mknod root/null c 1 3
: > root/empty
chmod 4750 root/big
chown 12:34 root/etc/sub/b
python3 -c "import os; os.setxattr('root/a', 'user.note', b'kept')"
export SOURCE_DATE_EPOCH=1700000000

build() { # N
	"$mkverity" tree -q root "store$1" "meta$1" &&
		mksquashfs "meta$1" "meta$1.sqfs" -noappend -quiet -no-progress >/dev/null &&
		(cd "store$1" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec sha256sum {} + | sort) \
			> "store$1.list"
}

objects_by_digest() {
	local n=0 f d
	for f in store1/*/*; do
		d=$(fsverity digest --compact "$f") || return 1
		[ "store1/${d:0:2}/${d:2}" = "$f" ] || { echo "$f holds digest $d"; return 1; }
		n=$((n + 1))
	done
	[ $n -eq 2 ] || { echo "$n objects, want 2 (identical files stored once)"; return 1; }
}

metadata_pins_objects() {
	python3 - <<'EOF'
import os, subprocess
d = subprocess.run(["fsverity", "digest", "--compact", "root/a"], capture_output=True,
                   text=True, check=True).stdout.strip()
mc = os.getxattr("meta1/a", "trusted.overlay.metacopy")
assert mc == bytes([0, 36, 0, 1]) + bytes.fromhex(d), mc
assert os.getxattr("meta1/a", "trusted.overlay.redirect") == ("/%s/%s" % (d[:2], d[2:])).encode()
assert os.getxattr("meta1/a", "user.note") == b"kept"
st = os.stat("meta1/big")
assert st.st_size == 1048577 and st.st_blocks * 512 < 65536, st   # sparse, right size
assert st.st_mode & 0o7777 == 0o4750
b = os.stat("meta1/etc/sub/b")
assert (b.st_uid, b.st_gid) == (12, 34)
assert os.stat("meta1/a").st_ino == os.stat("meta1/hardlink").st_ino
assert os.readlink("meta1/etc/link") == "../a"
assert os.stat("meta1/null").st_rdev == os.makedev(1, 3)
assert os.path.isdir("meta1/empty-dir") and os.stat("meta1/empty").st_size == 0
assert not os.listxattr("meta1/empty")
assert int(os.stat("meta1/etc").st_mtime) == 1700000000
EOF
}

identical() {
	build 2 && cmp meta1.sqfs meta2.sqfs && cmp store1.list store2.list
}

check builds build 1
check objects_are_named_by_their_fs_verity_digest objects_by_digest
check metadata_keeps_the_tree_and_pins_objects metadata_pins_objects
check same_tree_gives_byte_identical_images identical
