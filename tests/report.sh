#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The hardening figures of the last runs: execs per fuzz target (from
# tests/fuzz/fuzz.sh) and the fault campaign table (cases survived or lost,
# from the fault scenarios' rows, kept in $TEST_OUT/faults.txt) and the
# hostile-content campaign table ($TEST_OUT/hostile.txt).
#
# usage: tests/report.sh [--faults]   (--faults: only collect and print the campaign)
# env:   TEST_OUT (default output/test)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${TEST_OUT:-$top/output/test}
faults="$out/faults.txt" hostile="$out/hostile.txt"

# rows of the last scenario run replace the tables (work/BOARD/SCENARIO/*-row*.txt)
table() { # title, file, rows
	[ -n "$3" ] || return 0
	{
		echo "# $1, $(date -u +%FT%TZ)"
		printf '%-66s %8s %5s  %s\n' CASE SURVIVED LOST NOTE
		awk -F'\t' '{ printf "%-66s %8d %5d  %s\n", $1, $2, $3, $4; s += $2; l += $3 }
			END { printf "%-66s %8d %5d\n", NR " cases", s, l }' <<<"$3"
	} > "$2"
}
table "fault campaign" "$faults" "$(cat "$out"/work/*/*/fault-row.txt 2>/dev/null | sort)"
table "hostile-content campaign" "$hostile" \
	"$(cat "$out"/work/*/*/hostile-rows.txt 2>/dev/null | sort)"

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
for t in "$faults" "$hostile"; do
	if [ -f "$t" ]; then
		cat "$t"
		echo
	else
		echo "no $(basename "$t" .txt) campaign yet in $out (make check)"
	fi
done
