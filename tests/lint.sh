#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Static analysis of init/ and tools/*.c: cppcheck (suppressions in
# tests/cppcheck.supp) and clang-tidy (.clang-tidy). One PASS/FAIL line each;
# the findings follow a FAIL.
#
# usage: tests/lint.sh   env: JOBS (default: number of cores), TEST_OUT
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${TEST_OUT:-$top/output/test}/lint
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
cd "$top" || exit 1
srcs=(init/*.c tools/*.c)
rc=0

if ! command -v cppcheck >/dev/null || ! command -v clang-tidy >/dev/null; then
	echo "FAIL lint: cppcheck or clang-tidy not installed (make deps)"
	exit 1
fi

# the host unit tests' configuration header stands in for a board's .config
config="$out/strata_config.h"
if ! tools/unit-config.sh "$config"; then
	echo "FAIL lint: tools/unit-config.sh failed"
	exit 1
fi
if cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
	--include="$config" -D__linux__ --suppressions-list=tests/cppcheck.supp \
	--error-exitcode=1 --template='{file}:{line}: {severity} ({id}): {message}' \
	"${srcs[@]}" > "$out/cppcheck.txt" 2>&1; then
	echo "PASS lint/cppcheck (${#srcs[@]} files)"
else
	echo "FAIL lint/cppcheck: $(grep -c '^[a-z].*: [a-z]* (' "$out/cppcheck.txt") findings (log: $out/cppcheck.txt)"
	cat "$out/cppcheck.txt" >&2
	rc=1
fi

flags="-std=gnu11 $(make -s print-warnings) -Wno-unknown-warning-option -pthread \
-include $config"
export flags
# shellcheck disable=SC2016,SC2086
printf '%s\n' "${srcs[@]}" | xargs -P "$jobs" -n 4 sh -c 'clang-tidy --quiet "$@" -- $flags' tidy \
	> "$out/clang-tidy.txt" 2> "$out/clang-tidy.err"
status=$?
if [ $status -eq 0 ] && ! grep -q ': \(warning\|error\):' "$out/clang-tidy.txt"; then
	echo "PASS lint/clang-tidy (${#srcs[@]} files)"
else
	echo "FAIL lint/clang-tidy: $(grep -c ': \(warning\|error\):' "$out/clang-tidy.txt") findings (log: $out/clang-tidy.txt)"
	grep -A 3 ': \(warning\|error\):' "$out/clang-tidy.txt" >&2
	rc=1
fi
exit $rc
