#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every test of strata: host unit tests under ASan+UBSan, the make interface
# (tests/build.sh), the documentation (tests/docs.sh), image builds of each
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
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
# a filter (-k) may leave a runner nothing to do
[ -z "$filter" ] || TALLY_ALLOW_EMPTY=1

# ---- unit tests (host, sanitizers) -------------------------------------------
pure_srcs=$(echo "$top"/init/lib/*.c) # init/lib: the code that runs on the host as it is
warnings=$(make -s -C "$top" print-warnings)
includes=$(make -s -C "$top" print-includes) # a unit test may include an init/boot file whole
san="-pthread -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
mkdir -p "$out/unit"
unit_config="$out/unit/strata_config.h" # from the Kconfig defaults, see tools/unit-config.sh
"$top/tools/unit-config.sh" "$unit_config" || tally <<<"FAIL unit/config: tools/unit-config.sh failed"
# init/lib built once, then every test built against it, both $jobs at a time;
# the tests then run one by one, in order
unit_cc() { # OUT SRC...: compiles (-c when OUT ends .o) and keeps the messages in OUT.log
	local o=$1 c=()
	shift
	[ "${o%.o}" = "$o" ] || c=(-c)
	# shellcheck disable=SC2086
	gcc -std=gnu11 -g -O1 $warnings $san -include "$unit_config" $includes "${c[@]}" \
		-o "$o" "$@" 2> "$o.log"
}
export -f unit_cc
export warnings san unit_config includes
mkdir -p "$out/unit/lib"
rm -f "$out"/unit/lib/*.o
for src in $pure_srcs; do echo "$out/unit/lib/$(basename "$src" .c).o $src"; done |
	xargs -P "$jobs" -n 2 bash -c 'unit_cc "$@"' unit_cc || true
lib_objs=$(for src in $pure_srcs; do echo "$out/unit/lib/$(basename "$src" .c).o"; done | tr '\n' ' ')
for o in $lib_objs; do
	[ -e "$o" ] || { tally <<<"FAIL unit/lib/$(basename "$o" .o): does not compile (see $o.log)"; cat "$o.log" >&2; }
done
for src in "$top"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	rm -f "$out/unit/$name"
	echo "$out/unit/$name $src"
done | xargs -P "$jobs" -n 2 bash -c "unit_cc \"\$@\" $lib_objs" unit_cc || true
for src in "$top"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	bin="$out/unit/$name"
	if [ ! -x "$bin" ]; then
		tally <<<"FAIL unit/$name: does not compile (see $bin.log)"
		cat "$bin.log" >&2
		continue
	fi
	run_tallied "unit/$name (sanitizer report on stderr)" "$bin" 2> "$bin.err"
	cat "$bin.err" >&2
done

# the static binary's allocator (init/malloc.c), linked as the binary links it: musl, static
# shellcheck disable=SC2086
if musl-gcc -std=gnu11 -static -O1 $warnings -I"$top/tests/unit" -o "$out/unit/musl_malloc" \
	"$top/tests/unit/musl_malloc.c" "$top/init/malloc.c" 2> "$out/unit/musl_malloc.log"; then
	run_tallied unit/musl_malloc "$out/unit/musl_malloc"
else
	tally <<<"FAIL unit/musl_malloc: does not compile (see $out/unit/musl_malloc.log)"
	cat "$out/unit/musl_malloc.log" >&2
fi

# ---- the harness itself: what must make this suite red does ------------------
if [[ harness/ =~ $filter ]]; then
	run_tallied harness "$top/tests/harness.sh" "$out/harness"
fi

# ---- the make interface short of images: every kind of root (make rootfs) ----
if [[ build/ =~ $filter ]]; then
	run_tallied build "$top/tests/build.sh" "$out/build"
fi

# ---- the documentation against the tree (README.md, docs/) ---------------------
if [[ docs/ =~ $filter ]]; then
	run_tallied docs "$top/tests/docs.sh"
fi

# ---- host tools -----------------------------------------------------------------
# shellcheck disable=SC2086
if gcc -O1 $warnings $san -o "$out/unit/mkverity" "$top/tools/mkverity.c" -lfsverity \
	2> "$out/unit/mkverity.log"; then
	run_tallied mkverity "$top/tests/mkverity.sh" "$out/unit/mkverity" "$out/mkverity"
else
	tally <<<"FAIL mkverity/build: does not compile (see $out/unit/mkverity.log)"
fi
# the init's signature verifier against what OpenBSD's signify makes (a SKIP without it)
# shellcheck disable=SC2086
if gcc -std=gnu11 -O1 $warnings $san $includes -o "$out/unit/sigverify" \
	"$top/tools/sigverify.c" "$top"/init/lib/{sha512,ed25519,signify}.c 2> "$out/unit/sigverify.log"; then
	run_tallied signify "$top/tests/signify.sh" "$out/unit/sigverify" "$out/signify"
else
	tally <<<"FAIL signify/build: does not compile (see $out/unit/sigverify.log)"
fi
# the bootloader environments against fw_printenv/fw_setenv and grub-editenv (a SKIP without them)
if [[ bootenv/ =~ $filter ]]; then
	run_tallied bootenv "$top/tests/bootenv.sh" "$out/bootenv"
fi
# the A/B boot counting in a real U-Boot (short of a kernel: a few seconds a try)
if [[ uboot/ =~ $filter ]]; then
	run_tallied uboot "$top/tests/uboot.sh" "$out/uboot"
fi
# the same in a real GRUB (qemu_x86_64_nor; under a second a try)
if [[ grub/ =~ $filter ]]; then
	run_tallied grub "$top/tests/grub.sh" "$out/grub"
fi
# strata update over files: bundles signed by signify-openbsd, counters read by fw_printenv
if [[ update/ =~ $filter ]]; then
	run_tallied update "$top/tests/update.sh" "$out/update"
fi
# ---- fuzz targets, briefly (make fuzz runs them longer); static analysis ----------
# shellcheck disable=SC2154
run_tallied fuzz env TEST_OUT="$out" "$top/tests/fuzz/fuzz.sh" \
	--seconds "${FUZZ_CHECK_SECONDS:-3}" -k "$filter"
if [[ lint/ =~ $filter ]]; then
	run_tallied lint env TEST_OUT="$out" JOBS="$jobs" "$top/tests/lint.sh"
fi

if [ $unit_only = 0 ]; then
	# ---- images of every board a scenario needs ----------------------------------
	# the scenarios, listed once: a file that does not import is a FAIL here,
	# and the run below must report at least as many as are listed
	listing="$out/scenarios.list"
	if ! python3 "$top/tests/lib/scenario.py" --list --images-root "$out" --work "$out/work" \
		-k "$filter" > "$listing" 2> "$listing.err"; then
		tally <<<"FAIL qemu/list: tests/lib/scenario.py --list failed: $(tr '\n' ' ' < "$listing.err")"
	fi
	[ -n "$boards" ] || boards=$(awk '{print $1}' "$listing" | sort -u | tr '\n' ' ')
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
			"$top/tests/variants/${b#*@}.sh" "$out/trees/$b" "$base" > "$out/$b.vars" 2>> "$log"
			rc=$?
			if [ $rc = 77 ]; then
				# what this machine does not have: each of the board's scenarios is a SKIP
				why=$(tail -n 1 "$log")
				while read -r sb name; do
					[ "$sb" = "$b" ] && tally <<<"SKIP qemu/$b/$name: $why"
				done < "$listing"
				continue
			fi
			[ $rc = 0 ] || ok=0
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
		run_tallied "repro/$b" "$top/tests/repro.sh" "$b" "$out/$b" "$out/repro-$b"
		break
	done
	# ---- the update bundle of a build (qemu_x86_64_nor's), and one with a builder's key
	if [[ bundle/ =~ $filter ]]; then
		if [[ " $built " == *" qemu_x86_64_nor "* ]]; then
			run_tallied bundle "$top/tests/bundle.sh" "$out/qemu_x86_64_nor" \
				"$out/qemu_x86_64_nor.build.log" "$out/bundle"
		else
			tally <<<"SKIP bundle/qemu_x86_64_nor: the board was not built"
		fi
	fi
	# ---- OpenWrt's sysupgrade installing that bundle (the openwrt variant's root) ----
	if [[ sysupgrade/ =~ $filter ]]; then
		if [[ " $built " == *" qemu_x86_64_nor@openwrt "* ]]; then
			run_tallied sysupgrade "$top/tests/sysupgrade.sh" "$out/qemu_x86_64_nor@openwrt" \
				"$out/sysupgrade"
		elif [ -s "$out/qemu_x86_64_nor@openwrt.build.log" ]; then
			tally <<<"SKIP sysupgrade/openwrt: $(tail -n 1 "$out/qemu_x86_64_nor@openwrt.build.log")"
		fi
	fi
	# ---- the firmware-build recipes build strata through its make interface -------
	run_tallied integration "$top/tests/integration.sh" "$out/integration"
	# ---- the runtime tool on the host: exit codes 0 ok / 1 error / 2 usage ----------
	# Every run is under valgrind: the static musl binary as shipped (memcheck
	# sees its stack but not its heap: there is no malloc to replace), and the
	# same sources built against glibc, where memcheck sees the heap and leaks.
	# The read-only commands also read a sample boot record in a private /run.
	for b in $built; do
		# the first board whose binary runs here (126: another architecture)
		"$out/$b/build/strata" --help >/dev/null 2>&1
		[ $? -ne 126 ] || continue
		bins="$out/$b/build/strata" glibc="$out/$b/build/strata-glibc"
		includes=$(make -s -C "$top" print-includes)
		# shellcheck disable=SC2086
		if gcc -std=gnu11 -g -O1 -pthread $warnings -DSTRATA_VERSION='"host"' \
			-include "$out/$b/build/strata_config.h" $includes \
			-o "$glibc" "$top"/init/*.c "$top"/init/*/*.c \
			2> "$glibc.log"; then
			bins="$bins $glibc"
		else
			tally <<<"FAIL cli/$b/strata-glibc: does not compile (see $glibc.log)"
		fi
		# shellcheck disable=SC2016 # expanded by that sh
		private_run=(unshare -m sh -c 'mount -t tmpfs strata /run && mkdir /run/strata &&
			cp "$0" /run/strata/boot.json && exec "$@"' "$top/tests/cli/boot.json")
		cli() { # [--boot-record] expected-rc expected-text args...
			local wrap=() label="" want text got rc bin
			[ "$1" = --boot-record ] && { wrap=("${private_run[@]}") label=" (boot record)"; shift; }
			want=$1 text=$2
			shift 2
			for bin in $bins; do
				got=$("${wrap[@]}" valgrind -q --error-exitcode=99 --leak-check=full \
					--errors-for-leak-kinds=definite "$bin" "$@" 2>&1)
				rc=$?
				if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$got"; then
					tally <<<"PASS cli/$b/$(basename "$bin") $*$label"
				else
					tally <<<"FAIL cli/$b/$(basename "$bin") $*$label: exit $rc, wanted $want and '$text' (99: valgrind); got: $got"
				fi
			done
		}
		cli 0 "usage: strata COMMAND" --help
		cli 0 "  reset        drop the user layer" help
		cli 0 "usage: strata reset --user|--full" help reset
		cli 0 "usage: strata which [--json] PATH" which --help
		cli 0 "usage: firstboot|factoryreset|jffs2reset" firstboot -y --help
		cli 2 "strata: unknown command 'bogus': expected a command of this list" bogus
		cli 2 "strata help: unknown command 'bogus'" help bogus
		cli 2 "strata status: unknown argument '--bogus': expected --json" status --bogus
		cli 2 "strata reset: what to reset?: expected --user, --full or --cancel" reset
		cli 2 "strata revert: which paths?: expected one PATH or more" revert -y
		cli 2 "strata which: which path?: expected a PATH" which --json
		cli 2 "strata analyze: --svg without a FILE: expected --svg FILE" analyze --svg
		cli 1 "cannot read '/run/strata/boot.json'" status
		cli --boot-record 0 "assembly:  1769.534 ms" status
		cli --boot-record 0 "slot:      A" status
		cli --boot-record 0 '"first_boot": true' status --json
		cli --boot-record 0 "total                         1769.5" analyze
		cli --boot-record 0 '{"total_ms": 1769.534, "phases": [' analyze --json
		cli --boot-record 1 "cannot see the strata stack" layers
		cli --boot-record 1 "cannot write '/run/strata/data/strata.request'" reset --full -y
		break
	done
	# ---- QEMU scenarios -----------------------------------------------------------
	if [ -n "$built" ]; then
		rm -rf "$out/work"
		announced=$(awk -v built=" $built " 'index(built, " " $1 " ")' "$listing" | wc -l)
		run_tallied qemu --expect "$announced" bash -c 'set -o pipefail; python3 "$@" | { grep --line-buffered -v "^qemu: " || true; }' \
			bash "$top/tests/lib/scenario.py" --images-root "$out" --work "$out/work" \
			--jobs "$jobs" -k "$filter" --boards "$built"
		# the fault campaign's table (tests/scenarios/faults.py), also in make report
		if compgen -G "$out/work/*/*/*-row*.txt" >/dev/null; then
			TEST_OUT="$out" "$top/tests/report.sh" --faults
		fi
	fi
fi

tally_summary
