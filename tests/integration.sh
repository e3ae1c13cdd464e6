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
	elif readelf -l "$bin" | grep -q INTERP; then
		echo "FAIL integration/$1: $bin is not static"
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
