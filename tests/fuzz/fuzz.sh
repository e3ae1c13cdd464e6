#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the libFuzzer targets (tests/fuzz/TARGET.c, ASan+UBSan) and runs each
# for a bounded time, starting from its seed corpus tests/fuzz/corpus/TARGET/.
# Every seed (regressions included) is run first. One PASS/FAIL line per
# target; the execs go to $TEST_OUT/fuzz/stats.txt for `make report`.
#
# usage: tests/fuzz/fuzz.sh [--seconds N] [-k REGEX] [TARGET...]
# env:   TEST_OUT (default output/test)
#
# A target is one file: a comment line "fuzz-sources: a.c b.c" names the
# init/ files it links, and LLVMFuzzerTestOneInput drives the parser.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${TEST_OUT:-$top/output/test}/fuzz
seconds=60 filter="" targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	-k) filter=$2; shift 2 ;;
	-*) echo "usage: $0 [--seconds N] [-k REGEX] [TARGET...]" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
if [ ${#targets[@]} -eq 0 ]; then
	for src in "$here"/*.c; do
		t=$(basename "$src" .c)
		[[ "fuzz/$t" =~ $filter ]] && targets+=("$t")
	done
fi
[ ${#targets[@]} -gt 0 ] || exit 0
command -v clang >/dev/null || { echo "FAIL fuzz: clang not installed (make deps)"; exit 1; }
mkdir -p "$out"
# the unit tests' configuration: the Kconfig defaults with tools/unit-config.sh's overrides
config="$out/strata_config.h"
"$top/tools/unit-config.sh" "$config" || { echo "FAIL fuzz: tools/unit-config.sh failed"; exit 1; }
warnings=$(make -s -C "$top" print-warnings)
stats="$out/stats.txt"
echo "# target execs seconds corpus (fuzz.sh --seconds $seconds, $(date -u +%FT%TZ))" > "$stats"
# one target: built, its seeds run once, then fuzzed; its PASS/FAIL lines to
# stdout, the details to stderr; every core a target at a time (JOBS)
# shellcheck disable=SC2317 # run by xargs through export -f
fuzz_one() {
	local t=$1 src="$here/$1.c" bin="$out/$1" log="$out/$1.log" srcs seeds work execs n crash
	srcs=$(sed -n 's|^/\* fuzz-sources: \(.*\) \*/$|\1|p' "$src")
	if [ -z "$srcs" ]; then
		echo "FAIL fuzz/$t: no 'fuzz-sources:' line in $src"
		return 1
	fi
	# shellcheck disable=SC2086,SC2046
	if ! clang -std=gnu11 -g -O1 $warnings -Wno-unknown-warning-option \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-include "$config" -o "$bin" "$src" \
		$(printf "$top/init/lib/%s " $srcs) > "$log" 2>&1; then
		echo "FAIL fuzz/$t: does not compile (see $log)"
		cat "$log" >&2
		return 1
	fi
	seeds="$here/corpus/$t" work="$out/corpus/$t"
	mkdir -p "$seeds" "$work"
	# seeds and regressions first, each once, then new inputs for the time given
	if ! "$bin" -runs=0 -artifact_prefix="$out/$t-" "$seeds" >> "$log" 2>&1; then
		echo "FAIL fuzz/$t: a seed input fails (see $log)"
		tail -n 30 "$log" >&2
		return 1
	fi
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$out/$t-" "$work" "$seeds" >> "$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		n=$(find "$work" "$seeds" -type f | wc -l)
		echo "$t ${execs:-0} $seconds $n" > "$out/$t.stats"
		echo "PASS fuzz/$t (${execs:-0} execs in ${seconds} s, corpus $n)"
	else
		crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		echo "FAIL fuzz/$t: crash, input in ${crash:-$log}; add it to $seeds once fixed"
		grep -A 25 -E '^==[0-9]+==ERROR|invariant failed|runtime error' "$log" | head -n 40 >&2
		return 1
	fi
}
export -f fuzz_one
export here top out seconds config warnings
rm -f "$out"/*.stats "$out"/*.result
# shellcheck disable=SC2016 # expanded by that bash
printf '%s\n' "${targets[@]}" |
	xargs -P "${JOBS:-$(nproc)}" -I{} bash -c 'fuzz_one "$1" > "$out/$1.result"' bash {}
rc=$?
# in the targets' order, whatever order they finished in
for t in "${targets[@]}"; do
	cat "$out/$t.result" 2>/dev/null || echo "FAIL fuzz/$t: its run left no result"
	cat "$out/$t.stats" >> "$stats" 2>/dev/null
done
rm -f "$out"/*.stats "$out"/*.result
[ $rc -eq 0 ] || rc=1
exit $rc
