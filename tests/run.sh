#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every test of strata: host unit tests under ASan+UBSan, image builds of each
# tested board, then QEMU scenarios in parallel. The last line is
# "N passed, N failed, N skipped".
#
# usage: tests/run.sh [--unit-only] [-k REGEX] [--boards "B1 B2"]
# A board named BOARD@VARIANT is BOARD built with the make variables that
# tests/variants/VARIANT.sh prints (other root filesystems, add-on layers).
# env:   TEST_OUT (default output/test), JOBS (default: number of cores)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${TEST_OUT:-$top/output/test}
jobs=${JOBS:-$(nproc)}
unit_only=0 filter="" boards=""
while [ $# -gt 0 ]; do
	case "$1" in
	--unit-only) unit_only=1; shift ;;
	-k) filter=$2; shift 2 ;;
	--boards) boards=$2; shift 2 ;;
	*) echo "usage: $0 [--unit-only] [-k REGEX] [--boards LIST]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
passed=0 failed=0 skipped=0

# Reads PASS/FAIL/SKIP lines on stdin, echoes them, and counts them.
tally() {
	local line
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		PASS\ *) passed=$((passed + 1)) ;;
		FAIL\ *) failed=$((failed + 1)) ;;
		SKIP\ *) skipped=$((skipped + 1)) ;;
		esac
	done
}

# ---- unit tests (host, sanitizers) -------------------------------------------
pure_srcs="$top/init/opts.c $top/init/mtd.c $top/init/ovl.c $top/init/strbuf.c \
$top/init/modules.c $top/init/bootrec.c $top/init/json.c $top/init/util.c \
$top/init/flashid.c $top/init/record.c $top/init/request.c $top/init/inspect.c \
$top/init/lowers.c $top/init/fsverity.c $top/init/manifest.c $top/init/buttonfsm.c \
$top/init/format.c"
warnings=$(make -s -C "$top" print-warnings)
san="-pthread -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
mkdir -p "$out/unit"
for src in "$top"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	bin="$out/unit/$name"
	# shellcheck disable=SC2086
	if ! gcc -std=gnu11 -g -O1 $warnings $san -include "$top/tests/unit/config.h" \
		-o "$bin" "$src" $pure_srcs 2> "$bin.log"; then
		tally <<<"FAIL unit/$name: does not compile (see $bin.log)"
		cat "$bin.log" >&2
		continue
	fi
	"$bin" > "$bin.out" 2> "$bin.err"
	rc=$?
	tally < "$bin.out"
	cat "$bin.err" >&2
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$bin.out"; then
		tally <<<"FAIL unit/$name: exited $rc (sanitizer report above)"
	fi
done

# ---- host tools -----------------------------------------------------------------
# shellcheck disable=SC2086
if gcc -O1 $warnings $san -o "$out/unit/mkverity" "$top/tools/mkverity.c" -lfsverity \
	2> "$out/unit/mkverity.log"; then
	tally < <("$top/tests/mkverity.sh" "$out/unit/mkverity" "$out/mkverity")
else
	tally <<<"FAIL mkverity/build: does not compile (see $out/unit/mkverity.log)"
fi

if [ $unit_only = 0 ]; then
	# ---- images of every board a scenario needs ----------------------------------
	[ -n "$boards" ] || boards=$(python3 "$top/tests/lib/scenario.py" --list --images-root "$out" \
		--work "$out/work" -k "$filter" | awk '{print $1}' | sort -u | tr '\n' ' ')
	built=""
	for b in $boards; do
		log="$out/$b.build.log"
		echo "building $b (log: $log)"
		# scenarios start from pristine flash, not from an earlier run's device state
		rm -f "$out/$b"/images/flash-*.bin
		# BOARD@VARIANT: the board built with what tests/variants/VARIANT.sh prints
		base=${b%@*} vars=() ok=1
		: > "$log"
		if [ "$base" != "$b" ]; then
			"$top/tests/variants/${b#*@}.sh" "$out/trees/$b" "$base" > "$out/$b.vars" 2>> "$log" ||
				ok=0
			mapfile -t vars < "$out/$b.vars"
		fi
		if [ $ok = 1 ] && make -C "$top" O="$out/$b" "${base}_defconfig" >> "$log" 2>&1 &&
			make -C "$top" O="$out/$b" all "${vars[@]}" >> "$log" 2>&1; then
			tally <<<"PASS build/$b"
			built="$built $b"
		else
			tail -n 20 "$log"
			tally <<<"FAIL build/$b (log: $log)"
		fi
	done
	# ---- the same configuration builds the same images ---------------------------
	for b in $built; do
		case "$b" in *@*) continue ;; esac
		tally < <("$top/tests/repro.sh" "$b" "$out/$b" "$out/repro-$b")
		break
	done
	# ---- the firmware-build recipes build strata through its make interface -------
	tally < <("$top/tests/integration.sh" "$out/integration")
	# ---- the runtime tool on the host: exit codes 0 ok / 1 error / 2 usage ----------
	for b in $built; do
		bin="$out/$b/build/strata"
		# the first board whose binary runs here (126: another architecture)
		"$bin" --help >/dev/null 2>&1
		[ $? -ne 126 ] || continue
		cli() { # expected-rc expected-text args...
			local want=$1 text=$2 got rc
			shift 2
			got=$("$bin" "$@" 2>&1)
			rc=$?
			if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$got"; then
				tally <<<"PASS cli/$b/strata $*"
			else
				tally <<<"FAIL cli/$b/strata $*: exit $rc, wanted $want and '$text'; got: $got"
			fi
		}
		cli 0 "usage: strata COMMAND" --help
		cli 2 "unknown command 'bogus'" bogus
		cli 2 "unknown argument '--bogus'" status --bogus
		cli 1 "cannot read '/run/strata/boot.json'" status
		break
	done
	# ---- QEMU scenarios -----------------------------------------------------------
	if [ -n "$built" ]; then
		rm -rf "$out/work"
		tally < <(python3 "$top/tests/lib/scenario.py" --images-root "$out" --work "$out/work" \
			--jobs "$jobs" -k "$filter" --boards "$built" | grep --line-buffered -v '^qemu: ')
	fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
