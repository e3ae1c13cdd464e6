#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: the figures of docs/bench.md (see tests/lib/bench.py).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec python3 "$top/tests/lib/bench.py" --out "${BENCH_OUT:-$top/output/bench}" "$@"
