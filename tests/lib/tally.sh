# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# The suite's counting, sourced by tests/run.sh (and tested by
# tests/harness.sh): PASS/FAIL/SKIP lines are counted, and a runner cannot
# end green without running. A runner that exits non-zero without a FAIL
# line, reports nothing, or reports fewer results than it announced is a
# FAIL naming it. One that exits 77 having reported nothing cannot run on
# this machine (automake's convention): a SKIP, its last line the reason.
passed=0 failed=0 skipped=0 tally_last=""

# Reads PASS/FAIL/SKIP lines on stdin, echoes them, and counts them.
tally() {
	local line
	while IFS= read -r line; do
		echo "$line"
		tally_last=$line
		case "$line" in
		PASS\ *) passed=$((passed + 1)) ;;
		FAIL\ *) failed=$((failed + 1)) ;;
		SKIP\ *) skipped=$((skipped + 1)) ;;
		esac
	done
}

# usage: run_tallied NAME [--expect N] COMMAND [ARGS...]
# Runs COMMAND, counting its lines as they come, then checks its exit status
# and how many results it gave (N: at least that many when given; nothing
# at all is allowed only with TALLY_ALLOW_EMPTY set, as under a -k filter).
run_tallied() {
	local name=$1 expect="" rc
	shift
	if [ "$1" = --expect ]; then
		expect=$2
		shift 2
	fi
	local p0=$passed f0=$failed s0=$skipped
	tally_last=""
	tally < <("$@")
	wait $!
	rc=$?
	local n=$((passed + failed + skipped - p0 - f0 - s0))
	if [ $rc -eq 77 ] && [ $n -eq 0 ]; then
		tally <<<"SKIP $name: ${tally_last:-exited 77 without saying why}"
		return 0
	fi
	if [ $rc -ne 0 ] && [ $failed -eq $f0 ]; then
		tally <<<"FAIL $name: exited $rc without reporting a failure"
	fi
	if [ $n -eq 0 ] && [ -z "${TALLY_ALLOW_EMPTY:-}" ]; then
		tally <<<"FAIL $name: reported no result"
	elif [ -n "$expect" ] && [ "$n" -lt "$expect" ]; then
		tally <<<"FAIL $name: announced $expect results, reported $n"
	fi
	return 0
}

# The last line of the suite.
tally_summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
}
