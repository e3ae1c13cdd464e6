#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Refuses a configuration the init cannot boot, naming the symbol and why,
# before anything is built. The init applies the same rules to strata.stack=.
# usage: check-config.sh DOTCONFIG
set -eu
config=$1
CONFIG_STRATA_STACK="system user"
CONFIG_STRATA_USER_PART=""
CONFIG_STRATA_VERITY_MODE="digest"
CONFIG_STRATA_DMVERITY_ERROR="eio"
# shellcheck disable=SC1090
. "$config"

refuse() {
	echo "$config: $*" >&2
	exit 1
}

levels=$(echo "$CONFIG_STRATA_STACK" | tr ',' ' ')
# shellcheck disable=SC2086
set -- $levels
if [ $# -gt 2 ]; then
	refuse "CONFIG_STRATA_STACK=\"$CONFIG_STRATA_STACK\" asks for $# overlay levels;" \
		"overlayfs nests at most 2 (the kernel's FILESYSTEM_MAX_STACK_DEPTH: the" \
		"squashfs lowers are depth 0, the system overlay 1, the user overlay 2)." \
		"A read-only layer fits as an add-on lower (CONFIG_STRATA_ADDONS), data-only" \
		"layers as the object store (CONFIG_STRATA_STORE_DIR); neither adds a level."
fi
case "$*" in
"system user" | system | system+user) ;;
*) refuse "CONFIG_STRATA_STACK=\"$CONFIG_STRATA_STACK\": expected \"system user\" (nested" \
	"user overlay), \"system+user\" (both layers in one overlay) or \"system\" (the" \
	"system overlay alone)" ;;
esac
if [ "$*" = system ] && [ -n "$CONFIG_STRATA_USER_PART" ]; then
	refuse "CONFIG_STRATA_USER_PART=\"$CONFIG_STRATA_USER_PART\" is a partition for the" \
		"user layer, and CONFIG_STRATA_STACK=\"system\" has no user overlay"
fi
case "$CONFIG_STRATA_VERITY_MODE" in
digest | dm-verity) ;;
*) refuse "CONFIG_STRATA_VERITY_MODE=\"$CONFIG_STRATA_VERITY_MODE\": expected \"digest\" (each" \
	"layer's whole fs-verity digest at boot) or \"dm-verity\" (a hash tree, blocks checked" \
	"as they are read)" ;;
esac
case "${CONFIG_STRATA_DMVERITY_FEC_ROOTS:-2}" in
0 | [2-9] | 1[0-9] | 2[0-4]) ;;
*) refuse "CONFIG_STRATA_DMVERITY_FEC_ROOTS=$CONFIG_STRATA_DMVERITY_FEC_ROOTS: expected 0 (no" \
	"forward error correction) or 2 to 24 parity bytes per 255" ;;
esac
case "$CONFIG_STRATA_DMVERITY_ERROR" in
eio | restart | panic) ;;
*) refuse "CONFIG_STRATA_DMVERITY_ERROR=\"$CONFIG_STRATA_DMVERITY_ERROR\": expected eio," \
	"restart or panic" ;;
esac
