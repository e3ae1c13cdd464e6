#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds strata for the host (HOSTCC) from the Kconfig defaults: the runtime
# commands as the docs check (tests/docs.sh) and make docs-commands run them.
# usage: tools/host-strata.sh OUT   (also writes OUT-config.h and OUT-config.config)
set -eu
if [ $# -ne 1 ]; then
	echo "usage: $0 OUT" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$(dirname "$out")"
"$top/tools/unit-config.sh" "$out-config.h"
# a calling make's variables (O=, BOARD=) do not change these two
warnings=$(env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" print-warnings)
includes=$(env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" print-includes)
# shellcheck disable=SC2086 # word lists
${HOSTCC:-gcc} -std=gnu11 -O1 -pthread $warnings -DSTRATA_VERSION='"host"' \
	-include "$out-config.h" $includes -o "$out" "$top"/init/*.c "$top"/init/*/*.c
