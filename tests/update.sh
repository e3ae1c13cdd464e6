#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# strata update on the host, over files standing in for the slots' partitions
# and the U-Boot environment of qemu_aarch64_virt's boot disk (two copies, at
# 0 and 64 KiB): bundles made by tools/mkbundle.sh with keys made by Debian's
# signify-openbsd, the counters read back by libubootenv's fw_printenv. An
# install writes the slot not running and puts it first; every refused
# bundle (no, wrong or another key's signature, another board, truncated,
# padded, a changed image, one larger than its slot, an older version) leaves
# the running slot first with its data, and the same install then succeeds;
# mark-good and rollback from the booted slot. The booted slot is read from
# /run/strata/boot.json, so each run is in a private /run (unshare -m).
# Prints PASS/FAIL lines; exits 77 with the reason when a tool is missing.
# update.conf, the version file and the keys may come from an upper on the
# flash: a FIFO, a symlink there is refused by name, without blocking (each
# such run is under timeout). mark-good on a boot not from a slot does
# nothing and succeeds, without an update.conf. The init systems' wiring
# of mark-good (overlays/examples' procd script and systemd unit, the test
# root's inittab) is run against a stub strata: after done, only from a
# slot, not without update.conf.
# usage: tests/update.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
for tool in gcc signify-openbsd fw_printenv fw_setenv mkenvimage unshare; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool not installed (packages signify-openbsd, libubootenv-tool, u-boot-tools: make deps)"
		exit 77
	fi
done
rm -rf "$work"
mkdir -p "$work/keys"
cd "$work" || exit 1
work=$(pwd -P) # update.conf names files by real paths: strata follows no symlink in the root
failed=0
pass() { echo "PASS update/$1"; }
fail() {
	echo "FAIL update/$1"
	failed=1
}

warnings=$(make -s -C "$top" print-warnings)
includes=$(make -s -C "$top" print-includes)
"$top/tools/unit-config.sh" "$work/config.h"
# shellcheck disable=SC2086
if ! gcc -std=gnu11 -g -O1 -pthread -fsanitize=address,undefined $warnings \
	-DSTRATA_VERSION='"host"' -include "$work/config.h" $includes -o strata \
	"$top"/init/*.c "$top"/init/*/*.c 2> build.log; then
	fail "build: the host binary does not compile: $(head -c 2000 build.log)"
	exit 1
fi

"$top/tools/mkbundle.sh" --new-key dev >/dev/null
signify-openbsd -G -n -p other.pub -s other.sec >/dev/null
cp dev/strata.pub keys/
head -c 300000 /dev/urandom > rootfs.img
head -c 100000 /dev/urandom > kernel.img
echo 2026.12.1 > version
cat > update.conf <<CONF
# the aarch64 board's layout, on files
compatible qemu_aarch64_virt
keys $work/keys
version $work/version
tries 3
bootenv uboot $work/bootenv 0x4000 0 0x10000
slot A rootfs $work/rootfs_a
slot A kernel $work/kernel_a
slot B rootfs $work/rootfs_b
slot B kernel $work/kernel_b
CONF
echo "$work/bootenv 0x0 0x4000" > fw_env.config
bundle() { # OUT VERSION [COMPATIBLE [KEY]]: rootfs.img and kernel.img
	"$top/tools/mkbundle.sh" -k "${4:-dev/strata.sec}" -c "${3:-qemu_aarch64_virt}" -v "$2" \
		-o "$1" rootfs=rootfs.img kernel=kernel.img
}
fresh() { # the device as it leaves the factory: slot A installed and good
	truncate -s 0 rootfs_a rootfs_b kernel_a kernel_b bootenv
	truncate -s 512K rootfs_a rootfs_b
	truncate -s 256K kernel_a kernel_b
	truncate -s 128K bootenv
	echo slot-a-root | dd of=rootfs_a conv=notrunc status=none
	printf 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\n' | mkenvimage -s 0x4000 -o env.img -
	dd if=env.img of=bootenv conv=notrunc status=none
	dd if=env.img of=bootenv bs=64K seek=1 conv=notrunc status=none
}
booted_as() { # SLOT COMMAND...: strata run with boot.json saying SLOT
	local slot=$1
	shift
	# shellcheck disable=SC2016 # expanded by that sh
	unshare -m sh -c 'mount -t tmpfs strata /run && mkdir -p /run/strata/data &&
		printf "{\"slot\": \"%s\"}\n" "$0" > /run/strata/boot.json && exec "$@"' "$slot" "$@"
}
getenv() { fw_printenv -c fw_env.config -n "$1" 2> /dev/null; }
counters() { echo "$(getenv BOOT_ORDER)/$(getenv BOOT_A_LEFT)/$(getenv BOOT_B_LEFT)"; }
run() { # NAME SLOT WANT_RC TEXT ARGS...
	local name=$1 slot=$2 want=$3 text=$4 got rc
	shift 4
	got=$(booted_as "$slot" ./strata update "$@" --config update.conf 2>&1)
	rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$got"; then
		return 0
	fi
	fail "$name: exit $rc, wanted $want and '$text'; got: $(head -c 1500 <<<"$got")"
	return 1
}

# ---- the happy path: install into B, boot it, mark it good, roll back ------------
fresh
bundle good.bundle 2026.12.2
if run install A 0 "slot B boots next with 3 tries" install good.bundle; then
	if cmp -s -n 300000 rootfs.img rootfs_b && cmp -s -n 100000 kernel.img kernel_b &&
		[ "$(counters)" = "B A/3/3" ] && [ "$(getenv STRATA_B_VERSION)" = 2026.12.2 ] &&
		grep -q slot-a-root rootfs_a; then
		pass "install: slot B holds the images, is first with 3 tries, slot A is untouched"
	else
		fail "install: slot B or the counters are not as installed: $(counters)"
	fi
fi
# the second copy of the counters is written too (the boot script's fallback)
if cmp -s <(dd if=bootenv bs=16K count=1 status=none) \
	<(dd if=bootenv bs=16K skip=4 count=1 status=none); then
	pass "install: both copies of the counters written alike"
else
	fail "install: the counters' second copy differs from the first"
fi
run status A 0 "next boot: B" status && pass "status: the next boot is slot B"
fw_setenv -c fw_env.config BOOT_B_LEFT 2 2> /dev/null # the bootloader spent a try
run mark-good B 0 "slot B marked good" mark-good && [ "$(counters)" = "B A/3/3" ] &&
	pass "mark-good: slot B has its tries back"
run 'status --json' B 0 '"booted": "B", "next": "B", "order": "BA"' status --json &&
	pass "status --json: booted B, next B"
run rollback B 0 "slot A boots next" rollback && [ "$(getenv BOOT_ORDER)" = "A B" ] &&
	pass "rollback: slot A first again"
fw_setenv -c fw_env.config BOOT_A_LEFT 0 2> /dev/null
run 'rollback to a slot without tries' B 1 "slot A has no tries left" rollback &&
	[ "$(getenv BOOT_ORDER)" = "A B" ] && pass "rollback: refused when the other slot has no tries"
run 'install into the running slot' A 1 "slot A is running" install --slot A good.bundle &&
	pass "install: refuses the running slot"

# ---- from a pipe ---------------------------------------------------------------
fresh
# shellcheck disable=SC2002 # a pipe, not a file, on its stdin
if got=$(cat good.bundle | booted_as A ./strata update install - --config update.conf 2>&1) &&
	cmp -s -n 300000 rootfs.img rootfs_b && [ "$(counters)" = "B A/3/3" ]; then
	pass "install -: from a pipe"
else
	fail "install -: from a pipe: $got"
fi

# ---- what the new slot's first boot carries: the record each option leaves ---------
# (OpenWrt's lists, -n and -c through OpenWrt's own sysupgrade: tests/sysupgrade.sh)
carried() { # OPTIONS...: the carry record an install with them leaves
	fresh
	# shellcheck disable=SC2016 # expanded by that sh
	booted_as A sh -c './strata update install "$@" good.bundle --config update.conf \
		>/dev/null 2>&1 && cat /run/strata/data/strata.update' sh "$@" | tr '\n' ' '
}
got=$(carried --keep-all)
if [[ "$got" == *"update B all "* && "$got" != *keep* ]]; then
	pass "install --keep-all: the first boot of B carries everything"
else
	fail "install --keep-all: record '$got'"
fi
got=$(carried -k /etc/dropbear -k /root/x)
if [[ "$got" == *"update B "*"keep /etc/dropbear keep /root/x end "* ]]; then
	pass "install -k PATH...: the named paths beside the lists'"
else
	fail "install -k: record '$got'"
fi
got=$(carried -n -k /root/x)
if [[ "$got" == *"update B end "* ]]; then
	pass "install -n: nothing carried, whatever else was named"
else
	fail "install -n: record '$got'"
fi
got=$(carried -k relative 2>&1)
if [ -z "$got" ] && ! booted_as A ./strata update install -k relative good.bundle \
	--config update.conf >/dev/null 2>&1 && [ "$(counters)" = "A B/3/3" ]; then
	pass "install -k with a relative path: refused before anything is written"
else
	fail "install -k relative: record '$got', counters $(counters)"
fi

# ---- no data flash to record what the new slot carries: not made bootable ------------
fresh
# shellcheck disable=SC2016 # expanded by that sh
if ! got=$(unshare -m sh -c 'mount -t tmpfs strata /run && mkdir /run/strata &&
	echo "{\"slot\": \"A\"}" > /run/strata/boot.json && exec "$@"' sh \
	./strata update install good.bundle --config update.conf 2>&1) &&
	grep -qF "cannot record what slot B carries" <<<"$got" && [ "$(counters)" = "A B/3/0" ]; then
	pass "install: refused when what slot B carries cannot be recorded; slot A stays first, B has no tries"
else
	fail "install without a data flash: $got (counters $(counters))"
fi

# ---- refused: the running slot stays first and whole, and the install then works ---
refused() { # [--early] NAME TEXT BUNDLE [ARGS...]: --early, before a byte is written
	local early=0 name text file before after
	[ "$1" = --early ] && { early=1; shift; }
	name=$1 text=$2 file=$3
	shift 3
	fresh
	before=$(sha256sum < rootfs_a)
	run "$name" A 1 "$text" install "$@" "$file" || return
	after=$(sha256sum < rootfs_a)
	if [ "$before" != "$after" ] || [[ $(counters) != "A B/3/"* ]]; then
		fail "refused: $name: slot A or the counters changed: $(counters)"
	elif [ $early = 1 ] && { ! cmp -s -n 524288 rootfs_b /dev/zero ||
		[ "$(counters)" != "A B/3/3" ]; }; then
		fail "refused: $name: slot B was written or disabled before the bundle was checked"
	elif run "$name, then the good bundle" A 0 "boots next" install good.bundle &&
		[ "$(counters)" = "B A/3/3" ]; then
		pass "refused: $name ($text); slot A untouched; installed again after"
	fi
}
tail -n +3 good.bundle > unsigned.bundle
refused --early "no signature" "no signature" unsigned.bundle
sed '0,/^version 2026.12.2$/s//version 2026.12.9/' good.bundle > changed.bundle
refused --early "a changed header" "the signature does not verify" changed.bundle
bundle other-key.bundle 2026.12.2 qemu_aarch64_virt other.sec
refused --early "another key" "which is not in" other-key.bundle
bundle other-board.bundle 2026.12.2 qemu_x86_64_nor
refused --early "another board" "is for 'qemu_x86_64_nor'" other-board.bundle
head -c -5000 good.bundle > truncated.bundle
refused "truncated" "ends inside image 'kernel' (truncated)" truncated.bundle
head -c 200 good.bundle > header-cut.bundle
refused --early "cut in its header" "truncated" header-cut.bundle
{ cat good.bundle; echo more; } > padded.bundle
refused "padded" "goes on after its last image (padded)" padded.bundle
size=$(stat -c %s good.bundle)
cp good.bundle flipped.bundle
printf 'X' | dd of=flipped.bundle bs=1 seek=$((size - 50000)) conv=notrunc status=none
refused "a changed image" "does not match its digest" flipped.bundle
head -c 600000 /dev/urandom > big.img
"$top/tools/mkbundle.sh" -k dev/strata.sec -c qemu_aarch64_virt -v 2026.12.2 -o big.bundle \
	rootfs=big.img kernel=kernel.img
refused --early "larger than its slot" "larger than slot B's" big.bundle
bundle old.bundle 2026.11.30
refused --early "older" "older than the running 2026.12.1" old.bundle
fresh
run "older, allowed" A 0 "boots next" install --allow-downgrade old.bundle &&
	pass "install --allow-downgrade: an older version installs"

# ---- the root's files are untrusted: never followed, never waited on --------------
hostile() { # NAME TEXT ARGS...: refused with TEXT within 10 s, slot B untouched
	local name=$1 text=$2 got rc
	shift 2
	fresh
	got=$(booted_as A timeout 10 ./strata update "$@" 2>&1)
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "untrusted: $name: strata hung (killed after 10 s)"
	elif [ $rc -ne 1 ] || ! grep -qF -- "$text" <<<"$got"; then
		fail "untrusted: $name: exit $rc, wanted 1 and '$text'; got: $(head -c 1500 <<<"$got")"
	elif ! cmp -s -n 524288 rootfs_b /dev/zero || [ "$(counters)" != "A B/3/3" ]; then
		fail "untrusted: $name: slot B or the counters were touched"
	else
		pass "untrusted: $name: refused ($text) without blocking"
	fi
}
mkfifo fifo.conf version.fifo
hostile "update.conf a FIFO" "fifo.conf: not a regular file (a FIFO)" \
	install good.bundle --config fifo.conf
ln -s update.conf link.conf
hostile "update.conf a symlink" "link.conf: a symbolic link (never followed)" \
	install good.bundle --config link.conf
sed "s|^version .*|version $work/version.fifo|" update.conf > fifo-version.conf
hostile "the version file a FIFO" "version.fifo: not a regular file (a FIFO)" \
	install good.bundle --config fifo-version.conf
ln -s "$work/dev/strata.pub" keys/link.pub
hostile "a key file a symlink" "keys/link.pub: a symbolic link (never followed)" \
	install good.bundle --config update.conf
rm keys/link.pub
head -c 600 /dev/urandom | base64 > keys/big.pub
hostile "a key file too large" "keys/big.pub: larger than 511 bytes" \
	install good.bundle --config update.conf
rm keys/big.pub
# the init system runs mark-good on every boot, slots or not (docs/updates.md)
if got=$(booted_as "" timeout 10 ./strata update mark-good --config absent.conf 2>&1) &&
	[ "$got" = "this boot was not started from a slot: nothing to mark good" ]; then
	pass "mark-good: a boot not from a slot succeeds, without update.conf"
else
	fail "mark-good: a boot not from a slot: $got"
fi
got=$(booted_as B timeout 10 ./strata update mark-good --config absent.conf 2>&1)
if [ $? -eq 1 ] && grep -qF "absent.conf: No such file" <<<"$got"; then
	pass "mark-good: from a slot, a missing update.conf is named"
else
	fail "mark-good: from a slot without update.conf: $got"
fi

# ---- the init systems run mark-good once the boot is good (docs/updates.md) -------
ex=$top/overlays/examples
printf '#!/bin/sh\necho "$*" >> "%s/stub.log"\n' "$work" > stub
chmod +x stub
wired() { # FILE: FILE with strata and its files replaced by the stub and this directory's
	sed -e "s|/sbin/strata|$work/stub|g" -e "s|/run/strata/boot.json|$work/boot.json|g" \
		-e "s|/etc/strata/update.conf|$work/${conf:-update.conf}|g" "$1"
}
stub_ran() { # SLOT SCRIPT...: what the stub was asked with boot.json's slot SLOT
	rm -f stub.log
	printf '{\n  "init": "/sbin/init",\n  "slot": "%s",\n  "mode": "normal"\n}\n' "$1" > boot.json
	shift
	sh -c "$@" > /dev/null
	cat stub.log 2> /dev/null
}
procd=$ex/procd/etc/init.d/strata-mark-good
wired "$procd" > procd.sh
start=$(sed -n 's/^START=//p' "$procd")
if [ "${start:-0}" -gt 95 ] && [ "$(stub_ran B '. ./procd.sh && start')" = "update mark-good" ] &&
	[ -z "$(stub_ran "" '. ./procd.sh && start')" ]; then
	pass "wiring: procd's strata-mark-good (START=$start, after done's 95) runs 'strata update mark-good' only on a boot from a slot"
else
	fail "wiring: procd's strata-mark-good: START=$start, from slot B: '$(stub_ran B '. ./procd.sh && start')', without a slot: '$(stub_ran "" '. ./procd.sh && start')'"
fi
unit=$ex/systemd/etc/systemd/system/strata-mark-good.service
if grep -qx 'Requires=boot-complete.target' "$unit" && grep -qx 'After=.*boot-complete.target.*' "$unit" &&
	grep -qx 'Type=oneshot' "$unit" && grep -qx 'ExecStart=/sbin/strata update mark-good' "$unit"; then
	pass "wiring: systemd's strata-mark-good.service, after and requiring boot-complete.target, a oneshot of 'strata update mark-good'"
else
	fail "wiring: systemd's strata-mark-good.service: $(grep -v '^#' "$unit" | paste -sd ' ' -)"
fi
once=$(sed -n 's/^::once://p' "$top/overlays/rootfs/etc/inittab" | grep 'strata update mark-good')
printf '%s\n' "$once" > once.sh
wired once.sh > once-wired.sh
conf=absent.conf wired once.sh > once-noconf.sh
got_slot=$(stub_ran B ". ./once-wired.sh" 2>&1)
got_noconf=$(stub_ran B ". ./once-noconf.sh" 2>&1)
if [ -n "$once" ] && [ "$got_slot" = "update mark-good" ] && [ -z "$got_noconf" ]; then
	pass "wiring: the test root's inittab runs 'strata update mark-good' once, not without update.conf"
else
	fail "wiring: the test root's inittab: '$once': with update.conf '$got_slot', without '$got_noconf'"
fi
# each runs a command strata has: from slot B it keeps B, without a slot it is quiet about it
if run "wiring: the command the init systems run" B 0 "slot B marked good" mark-good; then
	pass "wiring: 'strata update mark-good' from slot B keeps it"
fi

# ---- a cut at every write step of an install ----------------------------------
# STRATA_UPDATE_CUT=N (CONFIG_STRATA_FAULT_INJECTION) stops the install dead
# after its Nth write step: a copy of the counters stored, an image chunk
# written, an image synced. After each, the slot the boot script would start
# (copy 1 of the counters when its CRC holds, else copy 2: boot.cmd) must be
# A, untouched, or B complete; and the same install, run again, must succeed.
# (A process that stops keeps what it wrote in the page cache; the order of
# the steps is what this proves, tests/scenarios the flash under it.)
copy2_config=$work/fw_env2.config
echo "$work/bootenv 0x10000 0x4000" > "$copy2_config"
starts() { # the slot the boot script takes, by the counters' first readable copy
	local order a b
	if order=$(fw_printenv -c fw_env.config -n BOOT_ORDER 2> /dev/null); then
		a=$(getenv BOOT_A_LEFT) b=$(getenv BOOT_B_LEFT)
	else
		order=$(fw_printenv -c "$copy2_config" -n BOOT_ORDER 2> /dev/null)
		a=$(fw_printenv -c "$copy2_config" -n BOOT_A_LEFT 2> /dev/null)
		b=$(fw_printenv -c "$copy2_config" -n BOOT_B_LEFT 2> /dev/null)
	fi
	for s in $order; do
		if [ "$s" = A ] && [ "${a:-0}" -gt 0 ]; then echo A; return; fi
		if [ "$s" = B ] && [ "${b:-0}" -gt 0 ]; then echo B; return; fi
	done
	echo none
}
cuts=0 bad=""
for n in $(seq 1 40); do
	fresh
	STRATA_UPDATE_CUT=$n booted_as A ./strata update install --config update.conf good.bundle \
		> cut.log 2>&1
	rc=$?
	[ $rc -eq 0 ] && break # past the last step
	if [ $rc -ne 99 ]; then
		bad="$bad step $n: exit $rc ($(head -c 300 cut.log));"
		continue
	fi
	cuts=$((cuts + 1))
	s=$(starts)
	if [ "$s" = A ] && grep -q slot-a-root rootfs_a; then
		:
	elif [ "$s" = B ] && cmp -s -n 300000 rootfs.img rootfs_b && cmp -s -n 100000 kernel.img kernel_b; then
		:
	else
		bad="$bad step $n: the boot script would start '$s' ($(counters));"
	fi
	if ! booted_as A ./strata update install --config update.conf good.bundle > again.log 2>&1 ||
		[ "$(starts)" != B ] || ! cmp -s -n 300000 rootfs.img rootfs_b; then
		bad="$bad step $n: the install run again: $(head -c 300 again.log);"
	fi
done
if [ -z "$bad" ] && [ $cuts -ge 8 ]; then
	pass "power cuts: after each of the install's $cuts write steps, a whole slot boots and the install runs again"
else
	fail "power cuts ($cuts steps):$bad"
fi

# ---- usage and configuration errors -------------------------------------------
got=$(./strata update 2>&1)
rc=$?
if [ $rc -eq 2 ] && grep -qF "expected install, status, mark-good or rollback" <<<"$got"; then
	pass "usage: no subcommand says what was expected"
else
	fail "usage: no subcommand: exit $rc: $got"
fi
echo "slot C rootfs /x" > bad.conf
got=$(./strata update status --config bad.conf 2>&1)
if [ $? -eq 1 ] && grep -qF "bad.conf: line 1: cannot read 'slot'" <<<"$got"; then
	pass "configuration: a bad line is named"
else
	fail "configuration: a bad line: $got"
fi
exit $failed
