#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The hardening figures of the last runs: execs per fuzz target (from
# tests/fuzz/fuzz.sh) and the fault campaign table (cases survived or lost,
# from the fault scenarios' rows, kept in $TEST_OUT/faults.txt).
#
# usage: tests/report.sh [--faults]   (--faults: only collect and print the campaign)
# env:   TEST_OUT (default output/test)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${TEST_OUT:-$top/output/test}
faults="$out/faults.txt"

# rows of the last scenario run replace the table
rows=$(cat "$out"/work/*/fault-row.txt 2>/dev/null | sort)
if [ -n "$rows" ]; then
	{
		echo "# fault campaign, $(date -u +%FT%TZ)"
		printf '%-46s %8s %5s  %s\n' CASE SURVIVED LOST NOTE
		awk -F'\t' '{ printf "%-46s %8d %5d  %s\n", $1, $2, $3, $4; s += $2; l += $3 }
			END { printf "%-46s %8d %5d\n", NR " cases", s, l }' <<<"$rows"
	} > "$faults"
fi

if [ "${1:-}" != --faults ]; then
	stats="$out/fuzz/stats.txt"
	if [ -f "$stats" ]; then
		sed -n '1s/^# /# fuzz: /p' "$stats"
		printf '%-12s %12s %8s %8s\n' TARGET EXECS SECONDS CORPUS
		awk '!/^#/ { printf "%-12s %12d %8d %8d\n", $1, $2, $3, $4; e += $2 }
			END { printf "%-12s %12d\n", "total", e }' "$stats"
	else
		echo "no fuzz run yet in $out (make fuzz, or make check)"
	fi
	echo
fi
if [ -f "$faults" ]; then
	cat "$faults"
else
	echo "no fault campaign yet in $out (make check)"
fi
