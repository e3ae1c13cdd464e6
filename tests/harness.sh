#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the test harness itself: a suite that cannot go green without
# running. Runners that die, report nothing or report less than they
# announced, a scenario file that does not import, a scenario that raises
# and one that never returns must each end as a FAIL naming it.
# Prints PASS/FAIL lines.
# usage: tests/harness.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
rm -rf "$work"
mkdir -p "$work/scenarios"

check() { # NAME EXPECTED-REGEX TEXT
	if grep -qE -- "$2" <<<"$3"; then
		echo "PASS harness/$1"
	else
		echo "FAIL harness/$1: wanted /$2/ in: $(head -c 600 <<<"$3")"
	fi
}

# ---- run_tallied: each runner in a shell of its own, the counts it leaves --
tallied() { # RUNNER-ARGS...: the lines and the final counts
	bash -c '. "$0/tests/lib/tally.sh"; run_tallied "$@"; echo "counts $passed $failed $skipped"' \
		"$top" "$@"
}
check dies-silently '^FAIL dead: exited 3 without reporting a failure$' \
	"$(tallied dead sh -c 'exit 3')"
check dies-after-a-pass 'counts 1 1 0' "$(tallied half sh -c 'echo "PASS half/a"; exit 1')"
check reports-nothing '^FAIL mute: reported no result$' "$(tallied mute true)"
check reports-less '^FAIL short: announced 3 results, reported 2$' \
	"$(tallied short --expect 3 sh -c 'echo "PASS s/a"; echo "SKIP s/b: why"')"
check counts-a-good-runner '^counts 2 0 0$' \
	"$(tallied good --expect 2 sh -c 'echo "PASS g/a"; echo "PASS g/b"')"
check own-fail-is-enough '^counts 0 1 0$' "$(tallied own sh -c 'echo "FAIL o/a: x"; exit 1')"
check exit-77-is-a-skip '^SKIP absent: no tool here$' \
	"$(tallied absent sh -c 'echo "no tool here"; exit 77')"
check exit-77-counts-a-skip '^counts 0 0 1$' "$(tallied absent sh -c 'echo "no tool"; exit 77')"
check exit-77-after-a-result-is-a-fail '^FAIL late: exited 77 without reporting a failure$' \
	"$(tallied late sh -c 'echo "PASS late/a"; exit 77')"
check summary-is-red '^0 passed, 1 failed, 0 skipped$' \
	"$(bash -c '. "$0/tests/lib/tally.sh"; tally <<<"FAIL x: y"; tally_summary; echo "rc $?"' "$top")"

# ---- scenario.py: broken files, raising and hanging scenarios --------------
cat > "$work/scenarios/a_good.py" <<'EOF'
import time
from scenario import scenario

@scenario("board_a")
def passes(ctx):
    assert ctx.board == "board_a"

@scenario("board_a")
def raises(ctx):
    assert 1 == 2, "one is not two"

@scenario("board_b")
def never_returns(ctx):
    time.sleep(3600)
EOF
printf 'from scenario import scenario\ndef broken(:\n' > "$work/scenarios/b_broken.py"
list=$(python3 "$top/tests/lib/scenario.py" --list --images-root "$work" --work "$work/w" \
	--scenarios "$work/scenarios" 2>&1)
rc=$?
check list-names-the-broken-file 'scenario file b_broken.py does not import: .*SyntaxError' "$list"
check list-still-lists-the-rest 'board_b never_returns' "$list"
check list-fails "^1$" "$rc"
start=$(date +%s)
run=$(timeout 120 python3 "$top/tests/lib/scenario.py" --images-root "$work" --work "$work/w" \
	--scenarios "$work/scenarios" --jobs 3 --timeout 3 2>&1)
rc=$? took=$(($(date +%s) - start))
check run-names-the-broken-file '^FAIL qemu/b_broken.py: does not import' "$run"
check run-passes-the-good '^PASS qemu/board_a/passes' "$run"
check run-fails-the-raising '^FAIL qemu/board_a/raises .*one is not two' "$run"
check run-fails-the-hanging '^FAIL qemu/board_b/never_returns: did not finish within 3s' "$run"
check run-fails "^1 in [0-9]+s$" "$rc in ${took}s"
[ "$took" -lt 60 ] && echo "PASS harness/hang-does-not-hold-the-run (${took}s)" ||
	echo "FAIL harness/hang-does-not-hold-the-run: ${took}s"
