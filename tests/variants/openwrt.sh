#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "openwrt": a real OpenWrt userland (procd, preinit, uci, opkg,
# LuCI), the release's root filesystem tarball as ROOTFS=, read in place.
# Exits 77 (skip), saying why, when the tarball is not there.
# usage: openwrt.sh DIR BOARD   env: OPENWRT_ROOTFS (default: ../shared/openwrt's)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${OPENWRT_ROOTFS:-$top/../shared/openwrt/openwrt-18.06.4-x86-64-generic-rootfs.tar.gz}
if [ ! -f "$tarball" ]; then
	echo "no OpenWrt root filesystem at $tarball (set OPENWRT_ROOTFS)" >&2
	exit 77
fi
mkdir -p "$1"
# nothing else: OpenWrt's own files only (the test root's overlays are the built-in root's)
echo "ROOTFS=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")"
