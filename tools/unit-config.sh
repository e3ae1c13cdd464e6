#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Generates the config header of the host unit tests, fuzz targets and lint
# from the Kconfig defaults (no board's defconfig), the way the Makefile
# generates $(O)/build/strata_config.h, plus the overrides listed below.
# usage: unit-config.sh HEADER
#   writes HEADER and, beside it, the .config it comes from (HEADER's name
#   with .config for .h)
set -eu
if [ $# -ne 1 ]; then
	echo "usage: $0 HEADER" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
header=$1 config=${1%.h}.config

# What the tests need that the Kconfig defaults do not give, one
# CONFIG_X=value line each (.config syntax) with why it differs.
overrides=$(grep -v '^#' <<'EOF'
# Default off (production): the strata.powercut= and strata.mountapi= parsing
# in opts.c is only reachable with it, and fuzz/cmdline drives that parsing.
CONFIG_STRATA_FAULT_INJECTION=y
# Default 408 (KEY_RESTART) and no LED: test_button.c checks the button
# defaults of the QEMU boards (their defconfigs), KEY_F12 and the emulated
# keyboard's scroll-lock LED, a wildcard name that exercises the LED matching.
CONFIG_STRATA_BUTTON_KEY=88
CONFIG_STRATA_BUTTON_LED="input*::scrolllock"
# Default none: with "" the record code in outcome.c is unreachable and lint's
# path-sensitive analysis (clang-analyzer) skips it. The QEMU boards' name.
CONFIG_STRATA_RECORD_PART="strata_log"
EOF
)

# a failure leaves no header behind, not last run's
rm -f "$header"
mkdir -p "$(dirname "$header")"
# alldefconfig: every symbol at its Kconfig default, the KCONFIG_ALLCONFIG
# lines excepted
printf '%s\n' "$overrides" |
	KCONFIG_CONFIG="$config" KCONFIG_ALLCONFIG=/dev/stdin kconfig-conf -s --alldefconfig "$top/Kconfig"
# kconfig drops a value its dependencies refuse and clamps one out of range,
# without a word: each override must be in the .config as written
missing=$(printf '%s\n' "$overrides" | grep -Fxv -f "$config" || true)
if [ -n "$missing" ]; then
	echo "$0: Kconfig refused the override(s), see its depends/range:" >&2
	echo "$missing" >&2
	exit 1
fi
"$top/tools/check-config.sh" "$config"
{
	"$top/tools/kconfig-header.sh" "$top/Kconfig" "$config"
	# the Makefile passes the firmware's version (git describe) with -D
	echo '#ifndef STRATA_VERSION'
	echo '#define STRATA_VERSION "test"'
	echo '#endif'
} > "$header.tmp"
mv "$header.tmp" "$header"
