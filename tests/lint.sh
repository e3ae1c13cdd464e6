#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Static analysis of init/ (every directory) and tools/*.c: cppcheck (suppressions in
# tests/cppcheck.supp) and clang-tidy (.clang-tidy); every C file formatted as
# .clang-format says (clang-format); every shell script clean for shellcheck.
# One PASS/FAIL line each; the findings follow a FAIL.
#
# usage: tests/lint.sh   env: JOBS (default: number of cores), TEST_OUT
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${TEST_OUT:-$top/output/test}/lint
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
cd "$top" || exit 1
srcs=(init/*.c init/*/*.c tools/*.c)
rc=0

for tool in cppcheck clang-tidy clang-format shellcheck; do
	if ! command -v $tool >/dev/null; then
		echo "FAIL lint: $tool not installed (make deps)"
		exit 1
	fi
done

# the host unit tests' configuration header stands in for a board's .config
config="$out/strata_config.h"
if ! tools/unit-config.sh "$config"; then
	echo "FAIL lint: tools/unit-config.sh failed"
	exit 1
fi
if cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
	--include="$config" -D__linux__ -Iinit/lib -Iinit/boot -Iinit/cmd --suppressions-list=tests/cppcheck.supp \
	--error-exitcode=1 --template='{file}:{line}: {severity} ({id}): {message}' \
	"${srcs[@]}" > "$out/cppcheck.txt" 2>&1; then
	echo "PASS lint/cppcheck (${#srcs[@]} files)"
else
	echo "FAIL lint/cppcheck: $(grep -c '^[a-z].*: [a-z]* (' "$out/cppcheck.txt") findings (log: $out/cppcheck.txt)"
	cat "$out/cppcheck.txt" >&2
	rc=1
fi

flags="-std=gnu11 $(make -s print-warnings) -Wno-unknown-warning-option -pthread \
-include $config $(make -s print-includes)"
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

# Debian 12's clang-format (14) is the reference: another version may format otherwise
cfiles=(init/*.c init/*/*.[ch] tools/*.c tests/*.c tests/unit/*.[ch] tests/fuzz/*.[ch] tests/bench/*.c)
if clang-format --dry-run --Werror "${cfiles[@]}" > "$out/clang-format.txt" 2>&1; then
	echo "PASS lint/clang-format (${#cfiles[@]} files, $(clang-format --version | grep -o 'version [0-9]*'))"
else
	echo "FAIL lint/clang-format: $(grep -c ': error:' "$out/clang-format.txt") places in" \
		"$(grep ': error:' "$out/clang-format.txt" | cut -d: -f1 | sort -u | wc -l) files" \
		"(clang-format -i FILE; log: $out/clang-format.txt)"
	grep -A 2 ': error:' "$out/clang-format.txt" | head -n 40 >&2
	rc=1
fi

# every shell script git knows, by its #! line (tools/start-qemu.sh.in
# included) or, for a sourced file, its "# shellcheck shell=" directive;
# files they source are followed (-x)
is_script() { head -c 32 "$1" | grep -q '^#!.*sh' || head -n 3 "$1" | grep -q '^# shellcheck shell='; }
mapfile -t scripts < <(git ls-files | while read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] && is_script "$f" && echo "$f"
done)
# a shell file by its name that is neither would be skipped unseen: a sourced
# fragment (board/*/qemu.sh, tools/build-lib.sh, a root's etc/profile) must
# name the shell that sources it
mapfile -t unmarked < <(git ls-files | grep -E '(\.sh|\.sh\.in|\.bash|/profile)$' | while read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] && ! is_script "$f" && echo "$f"
done)
if [ ${#unmarked[@]} -gt 0 ]; then
	echo "FAIL lint/shellcheck-coverage: neither a #! line nor a '# shellcheck shell=' directive" \
		"in its first 3 lines: ${unmarked[*]}"
	rc=1
else
	echo "PASS lint/shellcheck-coverage (every *.sh, *.sh.in and profile is linted)"
fi
if shellcheck -x -f gcc "${scripts[@]}" > "$out/shellcheck.txt" 2>&1; then
	echo "PASS lint/shellcheck (${#scripts[@]} scripts)"
else
	echo "FAIL lint/shellcheck: $(grep -c ': \(error\|warning\|note\|style\):' "$out/shellcheck.txt") findings (log: $out/shellcheck.txt)"
	cat "$out/shellcheck.txt" >&2
	rc=1
fi
exit $rc
