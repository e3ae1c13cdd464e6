#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# OpenWrt's own sysupgrade (18.06.4's /sbin/sysupgrade and /lib/upgrade, from
# the openwrt variant's root as the build staged it) installing the build's
# strata bundle through /lib/upgrade/strata.sh, run in that root (chroot, own
# mount and PID namespaces) with the slots and GRUB's counters as files.
# Each case starts from a copy of the root with slot A good:
# -T only checks; a file that is not a bundle, a bundle with a changed image
# and -f are refused with the reason, nothing rebooted, slot A still first;
# sysupgrade BUNDLE writes slot B, puts it first with its tries, records
# what its first boot carries (OpenWrt's keep.d, sysupgrade.conf,
# conffiles; -c all of /etc; -n nothing) and reboots. The build also
# enabled procd's mark-good. Prints PASS/FAIL lines; exits 77 with the reason
# when the root or a tool is missing.
# usage: tests/sysupgrade.sh BUILD_DIR WORKDIR   (BUILD_DIR: make's O= of the openwrt variant)
# shellcheck disable=SC2016 # the checks in single quotes are evaluated by installed()
set -uo pipefail
build=$1 work=$2
staged=$build/build/rootfs
bundle=$build/images/update.bundle
if [ ! -f "$staged/lib/upgrade/common.sh" ] || [ ! -f "$bundle" ]; then
	echo "no OpenWrt root and bundle built at $build (the openwrt variant: OPENWRT_ROOTFS)"
	exit 77
fi
for tool in unshare chroot grub-editenv; do
	command -v "$tool" >/dev/null || {
		echo "$tool not installed (packages util-linux, coreutils, grub-common: make deps)"
		exit 77
	}
done
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
r=$work/root
pass() { echo "PASS sysupgrade/$1"; }
fail() { echo "FAIL sysupgrade/$1"; }

compatible=$(sed -n 's/^compatible[[:space:]]*//p' "$staged/etc/strata/update.conf")
bsize=$(sed -n 's/^image boot \([0-9]*\) .*/\1/p' "$bundle")
rsize=$(sed -n 's/^image rootfs \([0-9]*\) .*/\1/p' "$bundle")
# the bundle with one byte of its last image changed (its header, and so its signature, intact)
cp "$bundle" "$work/changed.bundle"
printf 'X' | dd of="$work/changed.bundle" bs=1 seek=$(($(stat -c %s "$bundle") - 100)) \
	conv=notrunc status=none

fresh() { # the device: slot A running and good, B empty; a configuration changed
	rm -rf "$r"
	cp -a "$staged" "$r"
	mkdir -p "$r/slots" "$r/run/strata/data" "$r/proc" "$r/dev" "$r/tmp"
	truncate -s $((bsize + 65536)) "$r/slots/boot_a" "$r/slots/boot_b"
	truncate -s $((rsize + 65536)) "$r/slots/rootfs_a" "$r/slots/rootfs_b"
	grub-editenv "$r/slots/grubenv" create
	grub-editenv "$r/slots/grubenv" set "BOOT_ORDER=A B" BOOT_A_LEFT=3 BOOT_B_LEFT=3
	cat > "$r/etc/strata/update.conf" <<-CONF
		compatible $compatible
		bootenv grub /slots/grubenv
		slot A boot /slots/boot_a
		slot A rootfs /slots/rootfs_a
		slot B boot /slots/boot_b
		slot B rootfs /slots/rootfs_b
	CONF
	printf '{"slot": "A"}\n' > "$r/run/strata/boot.json"
	# the reboot at the end: recorded, not done
	rm -f "$r/sbin/reboot"
	printf '#!/bin/sh\necho rebooted > /tmp/rebooted\n' > "$r/sbin/reboot"
	chmod 0755 "$r/sbin/reboot"
	echo /root/keepme >> "$r/etc/sysupgrade.conf"
	cp "$bundle" "$r/tmp/fw.bundle"
	cp "$work/changed.bundle" "$r/tmp/changed.bundle"
	head -c 100000 /dev/urandom > "$r/tmp/openwrt-combined.img"
	# a changed configuration, also where OpenWrt's layout on strata shows it:
	# /overlay/upper is the upper of / (what -c lists)
	mkdir -p "$r/etc/config" "$r/overlay/upper/etc/config"
	echo changed | tee "$r/etc/config/system" > "$r/overlay/upper/etc/config/system"
	tar -C "$r" -czf "$r/tmp/config.tgz" etc/config/system
}
# sysupgrade ARGS... in the root: prints its output, returns its exit status
in_root() {
	# shellcheck disable=SC2016 # expanded by that sh
	unshare -m -p -f sh -c 'mount --bind "$0" "$0" && mount --bind /dev "$0/dev" &&
		mount -t proc proc "$0/proc" && cd "$0" && exec chroot . /sbin/sysupgrade "$@"' \
		"$r" "$@" < /dev/null 2>&1
}
counters() {
	grub-editenv "$r/slots/grubenv" list |
		sed -n 's/^BOOT_ORDER=\(.*\)/o=\1/p; s/^BOOT_\([AB]\)_LEFT=\(.*\)/\1=\2/p' | tr '\n' ' '
}
untouched() { # slot A first with its tries, B not bootable or empty, no reboot
	[ ! -e "$r/tmp/rebooted" ] && [[ "$(counters)" == "o=A B "* ]] &&
		[ ! -e "$r/run/strata/data/strata.update" ]
}
refused() { # NAME TEXT ARGS...
	local name=$1 text=$2 got rc
	shift 2
	fresh
	got=$(in_root "$@")
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$text" <<<"$got" && untouched; then
		pass "$name"
	else
		fail "$name: exit $rc, counters $(counters); wanted a refusal saying '$text'; got: $(head -c 1500 <<<"$got")"
	fi
}

# the build put the hook and the enabled mark-good into the OpenWrt root
if [ -f "$staged/lib/upgrade/strata.sh" ] && [ -x "$staged/etc/init.d/strata-mark-good" ] &&
	[ "$(readlink "$staged/etc/rc.d/S99strata-mark-good")" = ../init.d/strata-mark-good ]; then
	pass "the build installs /lib/upgrade/strata.sh and enables strata-mark-good"
else
	fail "the OpenWrt root lacks /lib/upgrade/strata.sh or an enabled strata-mark-good"
fi

# -T (LuCI's image check): checked, nothing written
fresh
got=$(in_root -T /tmp/fw.bundle)
rc=$?
if [ $rc -eq 0 ] && untouched && ! cmp -s -n "$rsize" "$bundle" "$r/slots/rootfs_b"; then
	pass "-T checks the bundle and writes nothing"
else
	fail "-T: exit $rc, counters $(counters): $(head -c 1500 <<<"$got")"
fi

refused "an image that is not a bundle is refused by the image check" \
	"is not a strata bundle" /tmp/openwrt-combined.img
refused "a bundle whose image was changed is refused by strata" \
	"does not match its digest" /tmp/changed.bundle
refused "-f (a configuration archive) is refused" "-f is not supported" \
	-f /tmp/config.tgz /tmp/fw.bundle

installed() { # NAME CHECK ARGS...: the install went through; CHECK on strata.update
	local name=$1 check=$2 got rc update
	shift 2
	fresh
	eval "${prep:-}"
	got=$(in_root "$@")
	rc=$?
	update=$(cat "$r/run/strata/data/strata.update" 2>/dev/null)
	# the bundle's images, in order: boot, then rootfs
	if [ $rc -eq 0 ] && [ -e "$r/tmp/rebooted" ] && [[ "$(counters)" == "o=B A "*"B=3"* ]] &&
		cmp -s -n "$bsize" <(tail -c +"$(($(grep -abm1 '^end$' "$bundle" | cut -d: -f1) + 5))" \
			"$bundle") "$r/slots/boot_b" &&
		grep -q "^update B" <<<"$update" && eval "$check"; then
		pass "$name"
	else
		fail "$name: exit $rc, counters $(counters), strata.update: $(tr '\n' ' ' <<<"$update"); $(head -c 1500 <<<"$got")"
	fi
}
installed "sysupgrade BUNDLE installs slot B, carries what OpenWrt keeps, reboots" \
	'grep -qx "keep /etc/config" <<<"$update" && grep -qx "keep /etc/dropbear" <<<"$update" &&
	 grep -qx "keep /root/keepme" <<<"$update" && grep -qx "keep /etc/inittab" <<<"$update" &&
	 grep -qx "keep /etc/crontabs" <<<"$update"' \
	/tmp/fw.bundle
# (strata's -c: all of /etc beside the lists' paths outside it)
installed "sysupgrade -c carries all of /etc" \
	'grep -qx "keep /etc" <<<"$update" && ! grep -q "^keep /etc/" <<<"$update" &&
	 grep -qx "keep /root/keepme" <<<"$update"' \
	-c /tmp/fw.bundle
installed "sysupgrade -n carries nothing" '! grep -q "^keep" <<<"$update"' -n /tmp/fw.bundle
# keep.d a symlink to a directory (an upper can plant one): its lists are not read
prep='mv "$r/lib/upgrade/keep.d" "$r/lib/upgrade/lists" && ln -s lists "$r/lib/upgrade/keep.d"' \
	installed "a keep.d that is a symlink is not followed" \
	'! grep -q "^keep /etc/crontabs" <<<"$update" && grep -qx "keep /root/keepme" <<<"$update"' \
	/tmp/fw.bundle
# a wildcard line in sysupgrade.conf (OpenWrt's shell globs it): the names it
# matches are kept, as OpenWrt's own sysupgrade -l lists them; no literal '*'
prep='mkdir -p "$r/etc/ssl" && touch "$r/etc/ssl/a.pem" "$r/etc/ssl/b.pem" "$r/etc/ssl/c.crt" \
	"$r/etc/ssl/.hidden.pem" && echo "/etc/ssl/*.pem" >> "$r/etc/sysupgrade.conf"' \
	installed "a wildcard in sysupgrade.conf keeps what OpenWrt's sysupgrade -l lists" \
	'grep -qx "keep /etc/ssl/a.pem" <<<"$update" && grep -qx "keep /etc/ssl/b.pem" <<<"$update" &&
	 ! grep -q "c\.crt\|hidden\|\*" <<<"$update" &&
	 [ "$(in_root -l | grep "^/etc/ssl/" | sort | tr "\n" " ")" = "/etc/ssl/a.pem /etc/ssl/b.pem " ]' \
	/tmp/fw.bundle
