#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The firmware-build recipes in tools/ build strata through its make
# interface: the Buildroot external tree's package and the OpenWrt recipe,
# each run by a stand-in for its build system's package infrastructure.
# usage: tests/integration.sh OUTDIR   (prints PASS/FAIL lines)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
rm -rf "$out"
mkdir -p "$out"

# checks that DIR holds the installed runtime tool: a static binary + aliases
installed() { # NAME DIR LOG
	local bin=$2/sbin/strata
	if [ ! -x "$bin" ]; then
		echo "FAIL integration/$1: no $bin (log: $3)"
	elif grep -q INTERP <<<"$(readelf -l "$bin")"; then
		echo "FAIL integration/$1: $bin is not static"
	elif ! grep -q GNU_RELRO <<<"$(readelf -l "$bin")"; then
		echo "FAIL integration/$1: the build's TARGET_LDFLAGS (-z relro) did not reach $bin"
	elif [ "$(readlink "$2/sbin/firstboot")" != strata ] ||
		[ "$(readlink "$2/sbin/factoryreset")" != strata ]; then
		echo "FAIL integration/$1: firstboot/factoryreset links missing in $2/sbin"
	elif ! "$bin" --help | grep -q "usage: strata COMMAND"; then
		echo "FAIL integration/$1: $bin does not run"
	else
		echo "PASS integration/$1: installs a static strata ($(stat -c %s "$bin") bytes) and its aliases"
	fi
}

log=$out/buildroot.log
make -f "$top/tests/integration/buildroot.mk" BR2_EXTERNAL_STRATA_PATH="$top/tools/buildroot" \
	BUILD_DIR="$out/br/build" TARGET_DIR="$out/br/target" > "$log" 2>&1
installed buildroot "$out/br/target" "$log"

log=$out/openwrt.log
make -C "$top/tools/openwrt/strata" TOPDIR="$top/tests/integration/openwrt" \
	BUILD_DIR="$out/owrt/build" IPKG_DIR="$out/owrt/ipkg" STRATA_SOURCE="$top" \
	> "$log" 2>&1
installed openwrt "$out/owrt/ipkg" "$log"

# The build refuses a configuration the init cannot boot, before compiling:
# a stack deeper than overlayfs nests, a user partition without a user overlay,
# dm-verity parity that cannot correct anything.
refused() { # NAME STACK USER_PART EXPECTED [CONFIG_LINE]
	local dir=$out/config-$1 log=$out/config-$1.log
	mkdir -p "$dir"
	{ make -C "$top" O="$dir" SKIP_DEPS=1 qemu_x86_64_nor_defconfig &&
		sed -i -e '/^CONFIG_STRATA_STACK=/d' -e '/^CONFIG_STRATA_USER_PART=/d' "$dir/.config" &&
		printf 'CONFIG_STRATA_STACK="%s"\nCONFIG_STRATA_USER_PART="%s"\n%s\n' "$2" "$3" "${5:-}" \
			>> "$dir/.config" &&
		make -C "$top" O="$dir" SKIP_DEPS=1 strata; } > "$log" 2>&1
	local rc=$?
	if [ -z "$4" ]; then
		if [ $rc -eq 0 ] && [ -x "$dir/build/strata" ]; then
			echo "PASS integration/config-$1: CONFIG_STRATA_STACK=\"$2\" builds"
		else
			echo "FAIL integration/config-$1: CONFIG_STRATA_STACK=\"$2\" does not build (log: $log)"
		fi
	elif [ $rc -ne 0 ] && grep -qF "$4" "$log" && [ ! -e "$dir/build/strata" ]; then
		echo "PASS integration/config-$1: refused before building: $(grep -F "$4" "$log" | head -c 160)"
	else
		echo "FAIL integration/config-$1: expected a refusal naming '$4' (rc $rc, log: $log)"
	fi
}
refused stack-too-deep "system vendor user" "" \
	"asks for 3 overlay levels; overlayfs nests at most 2 (the kernel's FILESYSTEM_MAX_STACK_DEPTH"
refused stack-unknown-level "system vendor" "" 'expected "system user"'
refused user-part-without-user-overlay "system" "userdata" "has no user overlay"
refused stack-one-level "system" "" ""
refused fec-one-root "system user" "" "CONFIG_STRATA_DMVERITY_FEC_ROOTS=1: expected 0" \
	"CONFIG_STRATA_DMVERITY_FEC_ROOTS=1"

# The config header invents no value: a UBI board built without a user volume
# still has the user volume's share for strata.user= at boot (it was 0, giving
# the user volume none of the space), and an int whose dependencies are not
# met is left undefined rather than 0.
dir=$out/config-header log=$out/config-header.log
mkdir -p "$dir"
if { make -C "$top" O="$dir" SKIP_DEPS=1 qemu_x86_64_nand_defconfig &&
	sed -i -e '/^CONFIG_STRATA_USER_PART=/d' -e '/^CONFIG_STRATA_VERITY=/d' "$dir/.config" &&
	printf 'CONFIG_STRATA_USER_PART=""\n# CONFIG_STRATA_VERITY is not set\n' >> "$dir/.config" &&
	make -C "$top" O="$dir" SKIP_DEPS=1 "$dir/build/strata_config.h"; } > "$log" 2>&1 &&
	grep -qx '#define CONFIG_STRATA_USER_PART_PERCENT 50' "$dir/build/strata_config.h" &&
	! grep -q '#define CONFIG_STRATA_DMVERITY_FEC_ROOTS' "$dir/build/strata_config.h" &&
	grep -q 'CONFIG_STRATA_DMVERITY_FEC_ROOTS is not set' "$dir/build/strata_config.h"; then
	echo "PASS integration/config-header-invents-nothing"
else
	echo "FAIL integration/config-header-invents-nothing (log: $log, header: $dir/build/strata_config.h)"
fi
