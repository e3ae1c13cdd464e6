#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The build's make interface, short of images: the root tree (make rootfs) of
# every kind of root a firmware build brings, each named by ROOTFS= alone
# (OpenWrt's release tarball, a merged-/usr Debian-like tree, a plain busybox
# tree) and the built-in root with the test root's overlays; an overlay that
# collides with the root stops the build naming both paths and the variable;
# a root's symlinks never take the build's writes out of the tree; a missing
# package stops a target naming it; CFLAGS and LDFLAGS reach the init after
# strata's own; BOARD= picks the board; make help names every target; a
# board's update.conf puts what strata update reads into the root, with the
# development key or the builder's (UPDATE_KEY=), whose public key must be
# beside it, and a board without one gets none of it.
# Prints PASS/FAIL/SKIP lines.
# usage: tests/build.sh WORKDIR
#   env: OPENWRT_ROOTFS (default: the OpenWrt 18.06.4 tarball in ../shared/openwrt/)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
openwrt=${OPENWRT_ROOTFS:-$top/../shared/openwrt/openwrt-18.06.4-x86-64-generic-rootfs.tar.gz}
rm -rf "$work"
mkdir -p "$work"
o=$work/out tree=$o/build/rootfs

pass() { echo "PASS build/$1"; }
fail() { echo "FAIL build/$1: $2"; }
# runs make in O=$o, output in $work/NAME.log
mk() { # NAME MAKE-ARGS...
	local name=$1
	shift
	make -C "$top" O="$o" "$@" > "$work/$name.log" 2>&1
}
# prints DESCRIPTION unless COMMAND succeeds
expect() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	"$@" || echo "not $what;"
}
# NAME: make rootfs with MAKE-ARGS must succeed and CHECKS (a function
# calling expect) print nothing
root_case() { # NAME CHECKS MAKE-ARGS...
	local name=$1 checks=$2 why
	shift 2
	if ! mk "$name" "$@" rootfs; then
		fail "$name" "make rootfs $* failed: $(tail -n 3 "$work/$name.log" | tr '\n' ' ')"
		return
	fi
	why=$("$checks")
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why (log: $work/$name.log)"; fi
}
# NAME: make rootfs with MAKE-ARGS must fail with every TEXT in its output
refused() { # NAME "MAKE-ARGS" TEXT...
	local name=$1 args text
	read -ra args <<<"$2"
	shift 2
	if mk "$name" "${args[@]}" rootfs; then
		fail "$name" "make rootfs ${args[*]} succeeded"
		return
	fi
	for text in "$@"; do
		if ! grep -qF -- "$text" "$work/$name.log"; then
			fail "$name" "no '$text' in: $(tail -n 3 "$work/$name.log" | tr '\n' ' ')"
			return
		fi
	done
	pass "$name"
}
is_dir() { [ -d "$1" ] && [ ! -L "$1" ]; }
not() { ! "$@"; }
strata_in() { # DIR: strata and OpenWrt's names for it in DIR
	[ -x "$1/strata" ] && [ ! -L "$1/strata" ] && [ "$(readlink "$1/mount_root")" = strata ] &&
		[ "$(readlink "$1/jffs2reset")" = strata ]
}

if ! mk configure qemu_x86_64_nor_defconfig; then
	fail configure "make qemu_x86_64_nor_defconfig failed (log: $work/configure.log)"
	exit 1
fi

# ---- the built-in root: busybox and the test root's overlays -----------------
builtin_root() {
	expect "the test root's inittab" cmp -s "$top/overlays/rootfs/etc/inittab" "$tree/etc/inittab"
	expect "/rom a link into /run/strata" test "$(readlink "$tree/rom")" = run/strata/lower/0
	expect "busybox as /bin/sh" test "$(readlink "$tree/bin/sh")" = ../bin/busybox
	expect "/sbin/strata and its names" strata_in "$tree/sbin"
}
root_case rootfs-builtin builtin_root

# ---- what strata update reads: the board's update.conf, the key, the version ---
# qemu_x86_64_nor has an update.conf; no key configured: a development key in O
update_root() {
	expect "an update.conf naming the board" grep -qx "compatible qemu_x86_64_nor" "$tree/etc/strata/update.conf"
	expect "the board's slots" grep -qx "slot B rootfs mtd:rootfs_b" "$tree/etc/strata/update.conf"
	expect "a development key pair in O" test -f "$o/dev-key/strata.sec"
	expect "its public key in /etc/strata/keys" cmp -s "$o/dev-key/strata.pub" "$tree/etc/strata/keys/strata.pub"
	expect "the build's version" test "$(cat "$tree/etc/strata/version")" = \
		"$(cd "$top" && git describe --always --dirty 2> /dev/null || echo unknown)"
}
root_case update-root update_root
# a key of the builder's (UPDATE_KEY=): its public key beside it, named as it is
mkdir -p "$work/key"
"$top/tools/mkbundle.sh" --new-key "$work/key"
mv "$work/key/strata.sec" "$work/key/release.sec"
mv "$work/key/strata.pub" "$work/key/release.pub"
builder_key() {
	expect "the builder's key in /etc/strata/keys" cmp -s "$work/key/release.pub" "$tree/etc/strata/keys/release.pub"
	expect "without the development key" test ! -e "$tree/etc/strata/keys/strata.pub"
}
root_case update-builder-key builder_key UPDATE_KEY="$work/key/release.sec"
cp "$work/key/release.sec" "$work/key/lonely.sec"
refused update-key-without-public-key "UPDATE_KEY=$work/key/lonely.sec" \
	"no public key '$work/key/lonely.pub' beside the update signing key '$work/key/lonely.sec'"

# ---- OpenWrt 18.06.4's release root, as it is ---------------------------------
ref=$work/openwrt-ref
openwrt_root() {
	expect "OpenWrt's /rom directory" is_dir "$tree/rom"
	expect "OpenWrt's /rom/note" cmp -s "$ref/rom/note" "$tree/rom/note"
	expect "OpenWrt's own inittab" cmp -s "$ref/etc/inittab" "$tree/etc/inittab"
	expect "OpenWrt's own accounts" cmp -s "$ref/etc/passwd" "$tree/etc/passwd"
	expect "procd as /sbin/init" cmp -s "$ref/sbin/init" "$tree/sbin/init"
	expect "OpenWrt's own os-release link" test "$(readlink "$tree/etc/os-release")" = ../usr/lib/os-release
	expect "/sbin/strata in place of fstools' names" strata_in "$tree/sbin"
}
if [ -f "$openwrt" ]; then
	mkdir -p "$ref"
	tar -xzf "$openwrt" -C "$ref" ./etc/inittab ./etc/passwd ./sbin/init ./rom/note
	root_case rootfs-openwrt openwrt_root ROOTFS="$openwrt"
else
	echo "SKIP build/rootfs-openwrt: no OpenWrt root filesystem at $openwrt (set OPENWRT_ROOTFS)"
fi

# ---- a merged-/usr root (Debian's layout): the build writes through its links -
deb=$work/debian-like
mkdir -p "$deb"/usr/{bin,sbin,lib/systemd,lib64} "$deb"/etc "$deb"/var
ln -s usr/bin "$deb/bin"
ln -s usr/sbin "$deb/sbin"
ln -s usr/lib "$deb/lib"
ln -s usr/lib64 "$deb/lib64"
printf '#!/bin/sh\n' > "$deb/usr/lib/systemd/systemd"
chmod 0755 "$deb/usr/lib/systemd/systemd"
ln -s /lib/systemd/systemd "$deb/usr/sbin/init" # absolute, as systemd-sysv has it
printf 'root:x:0:0:root:/root:/bin/bash\n' > "$deb/etc/passwd"
debian_root() {
	expect "/bin a link to usr/bin" test "$(readlink "$tree/bin")" = usr/bin
	expect "/sbin a link to usr/sbin" test "$(readlink "$tree/sbin")" = usr/sbin
	expect "/lib a link to usr/lib" test "$(readlink "$tree/lib")" = usr/lib
	expect "strata in /usr/sbin" strata_in "$tree/usr/sbin"
	expect "the root's own accounts" cmp -s "$deb/etc/passwd" "$tree/etc/passwd"
	expect "without the test root's inittab" test ! -e "$tree/etc/inittab"
	expect "/sbin/init found through the absolute link" \
		not grep -q "no /sbin/init" "$work/rootfs-debian-usrmerge.log"
}
root_case rootfs-debian-usrmerge debian_root ROOTFS="$deb"

# an absolute /sbin link resolves inside the tree, not on the host
abs=$work/absolute-links host_sbin=/strata-build-test-sbin.$$
mkdir -p "$abs/etc"
ln -s "$host_sbin" "$abs/sbin"
absolute_root() {
	expect "nothing written to the host's $host_sbin" test ! -e "$host_sbin"
	expect "strata in the tree's $host_sbin" strata_in "$tree$host_sbin"
}
root_case rootfs-absolute-link absolute_root ROOTFS="$abs"
rm -rf "$host_sbin"

# ---- a plain busybox tree of the builder's ------------------------------------
bb=$work/busybox-tree
mkdir -p "$bb"/{bin,sbin,etc/init.d}
cp /bin/busybox "$bb/bin/busybox"
for applet in sh mount ls; do ln -s busybox "$bb/bin/$applet"; done
ln -s ../bin/busybox "$bb/sbin/init"
printf '::sysinit:/etc/init.d/rcS\n::askfirst:-/bin/sh\n' > "$bb/etc/inittab"
busybox_root() {
	expect "the tree's own inittab" cmp -s "$bb/etc/inittab" "$tree/etc/inittab"
	expect "without the test root's os-release" test ! -e "$tree/etc/os-release"
	expect "without the test root's /rom link" test ! -L "$tree/rom"
	expect "only the tree's applets" test ! -e "$tree/bin/cat"
	expect "/sbin/strata and its names" strata_in "$tree/sbin"
}
root_case rootfs-busybox-tree busybox_root ROOTFS="$bb"

# ---- overlays that collide with the root, either way --------------------------
# the issue's case: the test root's overlays named over OpenWrt's /rom directory
owrt_like=$work/openwrt-like
mkdir -p "$owrt_like/rom" "$owrt_like/etc"
refused overlay-file-over-directory "ROOTFS=$owrt_like OVERLAYS=overlays/rootfs" \
	"overlay 'overlays/rootfs/rom' is a symlink" "has '/rom' as a directory" \
	"take 'overlays/rootfs' out of OVERLAYS (Kconfig STRATA_OVERLAYS)"
# a directory over a merged-/usr link
ov=$work/overlay-bin
mkdir -p "$ov/bin"
echo tool > "$ov/bin/tool"
refused overlay-directory-over-symlink "ROOTFS=$deb OVERLAYS=$ov" \
	"overlay '$ov/bin' is a directory" "has '/bin' as a symlink to 'usr/bin'" \
	"take '$ov' out of OVERLAYS"
# over the built-in root, the symbol that names it
ov2=$work/overlay-etc-file
mkdir -p "$ov2"
echo x > "$ov2/etc"
refused overlay-collides-with-builtin-root "CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS=$ov2" \
	"overlay '$ov2/etc' is a file" "the built-in busybox root has '/etc' as a directory" \
	"out of CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS"
# a file over the root's symlink replaces the link; it is not written through
ov3=$work/overlay-resolv
host_file=/strata-build-test-resolv.$$
mkdir -p "$ov3/etc" "$work/link-root/etc"
echo "nameserver 192.0.2.1" > "$ov3/etc/resolv.conf"
ln -s "$host_file" "$work/link-root/etc/resolv.conf"
replaced_link() {
	expect "nothing written to the host's $host_file" test ! -e "$host_file"
	expect "the link replaced" test ! -L "$tree/etc/resolv.conf"
	expect "the overlay's file" cmp -s "$ov3/etc/resolv.conf" "$tree/etc/resolv.conf"
}
root_case overlay-replaces-symlink replaced_link ROOTFS="$work/link-root" OVERLAYS="$ov3"
rm -f "$host_file"

# ---- host packages: checked, named, never installed by a build target ----------
fresh=$work/fresh
if make -C "$top" O="$fresh" PKGS_config=strata-no-such-package qemu_x86_64_nor_defconfig \
	> "$work/deps-check.log" 2>&1; then
	fail deps-check "configured with a package missing"
elif ! grep -q 'missing packages: strata-no-such-package; run "make deps"' "$work/deps-check.log"; then
	fail deps-check "no 'missing packages: strata-no-such-package; run \"make deps\"' in: $(tr '\n' ' ' < "$work/deps-check.log")"
elif [ -e "$fresh/.config" ]; then
	fail deps-check "$fresh/.config written after the check failed"
else
	pass deps-check
fi

# ---- a cross board: its toolchain's packages are named whole (PACKAGE:ARCH) ----
if ! make -C "$top" O="$work/cross" BOARD=qemu_aarch64_virt strata > "$work/cross.log" 2>&1; then
	fail cross-board-builds "make BOARD=qemu_aarch64_virt strata: $(tail -n 3 "$work/cross.log" | tr '\n' ' ')"
elif ! grep -q 'STRIP.*(aarch64)' "$work/cross.log"; then
	fail cross-board-builds "no aarch64 binary in: $(tr '\n' ' ' < "$work/cross.log")"
else
	pass cross-board-builds
fi

# ---- BOARD=: the board of an O without a configuration; a configured O must match
if ! make -C "$top" O="$work/board" BOARD=qemu_x86_64_nand strata > "$work/board.log" 2>&1; then
	fail board-configures "make BOARD=qemu_x86_64_nand strata failed (log: $work/board.log)"
elif ! grep -qx 'CONFIG_STRATA_BOARD="qemu_x86_64_nand"' "$work/board/.config"; then
	fail board-configures "make BOARD=qemu_x86_64_nand did not configure qemu_x86_64_nand"
else
	pass board-configures
fi
# a board without an update.conf: no update files, no key
if ! make -C "$top" O="$work/board" rootfs > "$work/board-rootfs.log" 2>&1; then
	fail no-update-conf "make rootfs of qemu_x86_64_nand failed (log: $work/board-rootfs.log)"
elif [ -e "$work/board/build/rootfs/etc/strata/update.conf" ] || [ -e "$work/board/dev-key" ]; then
	fail no-update-conf "qemu_x86_64_nand has no update.conf, and got update files or a key"
else
	pass no-update-conf
fi
got=$(make -C "$top" O="$o" BOARD=qemu_x86_64_nand strata 2>&1)
if grep -q "BOARD=qemu_x86_64_nand: $o is configured for qemu_x86_64_nor" <<<"$got"; then
	pass board-mismatch
else
	fail board-mismatch "make BOARD=qemu_x86_64_nand in an O of qemu_x86_64_nor: $(head -c 300 <<<"$got")"
fi

# ---- make help: every target and every variable a builder sets ---------------
help=$(make -s -C "$top" help 2>&1)
missing=""
targets=$(sed -n '/^\.PHONY:/,/[^\\]$/{s/^\.PHONY://;s/\\$//;p}' "$top/Makefile")
for t in $targets; do
	case "$t" in FORCE | print-*) continue ;; esac # internal: the tests' and make's own
	grep -qE "(^|[ |])$t([ |]|$)" <<<"$help" || missing="$missing target:$t"
done
# the variables the Makefile takes from outside (?=), but the boards' own (board.mk)
vars=$(sed -n 's/^\([A-Z_]*\) ?=.*/\1/p' "$top/Makefile" | grep -v -x -e BOARD_ARCH -e BOARD_KERNEL_CONFIG)
for v in $vars BOARD CROSS_COMPILE CFLAGS LDFLAGS KERNEL_DIR DESTDIR SKIP_DEPS V; do
	grep -qE "(^|[ ,])$v=" <<<"$help" || missing="$missing variable:$v"
done
for c in "$top"/configs/*_defconfig; do
	c=$(basename "$c" _defconfig)
	grep -qw -- "$c" <<<"$help" || missing="$missing configuration:$c"
done
if [ -z "$missing" ]; then pass help-complete; else fail help-complete "make help lacks$missing"; fi

# ---- CFLAGS and LDFLAGS reach the init, after strata's own flags --------------
# (last: the init is rebuilt with them) -fno-stack-protector and -Wl,-z,relro
# undo two of strata's (-fstack-protector, -Wl,-z,norelro): fewer
# checked functions, a GNU_RELRO segment
checked() { grep -c 'call.*<__stack_chk_fail' <<<"$(objdump -d "$1")"; }
before=$(checked "$o/build/strata.unstripped")
if ! mk flags V=1 CFLAGS=-fno-stack-protector LDFLAGS=-Wl,-z,relro strata; then
	fail builder-flags "make strata with CFLAGS and LDFLAGS failed (log: $work/flags.log)"
else
	line=$(grep -- '-o .*strata.unstripped' "$work/flags.log")
	order=$(grep -o -- '-fno-stack-protector\|-fstack-protector\b\|-Wl,-z,norelro\|-Wl,-z,relro' <<<"$line" | tr '\n' ' ')
	after=$(checked "$o/build/strata.unstripped")
	if [ "$order" != "-Wl,-z,norelro -fstack-protector -fno-stack-protector -Wl,-z,relro " ]; then
		fail builder-flags "the builder's flags are not after strata's: $order"
	elif [ "$after" -ge "$before" ]; then
		fail builder-flags "-fno-stack-protector did not reach the binary ($before checked calls before, $after after)"
	elif ! grep -q GNU_RELRO <<<"$(readelf -lW "$o/build/strata")"; then
		fail builder-flags "-Wl,-z,relro did not reach the binary (no GNU_RELRO)"
	else
		pass builder-flags
	fi
fi
# from the environment too (OpenWrt's and many builders' way)
got=$(CFLAGS=-DSTRATA_FLAG_FROM_ENV make -C "$top" -n O="$o" V=1 strata 2>&1)
if grep -q -- '-o .*strata.unstripped' <<<"$got" && grep -q -- '-DSTRATA_FLAG_FROM_ENV' <<<"$got"; then
	pass builder-flags-environment
else
	fail builder-flags-environment "CFLAGS from the environment not on the compiler's line: $(grep -- 'strata.unstripped' <<<"$got" | head -c 300)"
fi
