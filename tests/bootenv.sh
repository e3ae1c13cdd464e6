#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# init/lib/bootenv.c against Debian's bootloader tools: what it writes,
# libubootenv's fw_printenv and grub-editenv read; what fw_setenv and
# grub-editenv write, it reads; the same edits give the same bytes (one U-Boot
# copy, the redundant pair through the flag's wrap, the GRUB block).
# Prints PASS/FAIL lines; exits 77 with the reason as its last line when a
# tool is missing (make deps installs them).
# usage: tests/bootenv.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
for tool in gcc fw_printenv fw_setenv grub-editenv; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool not installed (packages libubootenv-tool, grub-common: make deps)"
		exit 77
	fi
done
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

warnings=$(make -s -C "$top" print-warnings)
# shellcheck disable=SC2086
if ! gcc -std=gnu11 -g -O1 $warnings -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$top/init/lib" -o bootenv_tool "$top/tests/bootenv_tool.c" "$top/init/lib/bootenv.c" \
	"$top/init/lib/record.c" "$top/init/lib/strbuf.c" 2> build.log; then
	echo "FAIL bootenv/build: tests/bootenv_tool.c does not compile: $(head -c 2000 build.log)"
	exit 1
fi
ours=$work/bootenv_tool
# the library has no heap for LeakSanitizer to watch, and its exit scan is
# most of a run's time
export ASAN_OPTIONS=detect_leaks=0

check() { # name command...
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then echo "PASS bootenv/$name"; else echo "FAIL bootenv/$name: $out"; fi
}

# libubootenv leaves the image's padding as malloc gives it (not zeroed, unlike
# U-Boot's export); glibc's MALLOC_PERTURB_=255 makes that 0x00, the canonical
# padding, so its images can be compared whole.
export MALLOC_PERTURB_=255
fw_set() { # config name [value]
	fw_setenv -c "$1" -f /dev/null "${@:2}" 2> fw_setenv.err
}
fw_print() { # config
	fw_printenv -c "$1" -f /dev/null 2> fw_printenv.err
}
same() { # what expected-text actual-text
	[ "$2" = "$3" ] && return 0
	printf '%s differs:\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"
	return 1
}

# ---- U-Boot, one copy ------------------------------------------------------------
size=0x4000
echo "$work/u-ours.bin 0x0 $size" > u-ours.config
echo "$work/u-fw.bin 0x0 $size" > u-fw.config
# the edits, as "name value" or "name" (unset) lines; the value holds blanks, '=' and a newline
uboot_edits=(
	"BOOT_ORDER|A B" "BOOT_A_LEFT|3" "BOOT_B_LEFT|3" "bootcmd|run a; run b" "zz|x=y"
	"BOOT_B_LEFT|2" "script|line 1
line 2" "zz" "alpha|1" "alpha|a longer value than before" "a.b|sorted after a" "a|by name"
)
uboot_expected='BOOT_A_LEFT=3
BOOT_B_LEFT=2
BOOT_ORDER=A B
a=by name
a.b=sorted after a
alpha=a longer value than before
bootcmd=run a; run b
script=line 1
line 2'

apply() { # writer-function edits...
	local writer=$1 e
	shift
	for e in "$@"; do
		if [[ $e == *"|"* ]]; then
			"$writer" "${e%%|*}" "${e#*|}" || return 1
		else
			"$writer" "$e" || return 1
		fi
	done
}
verb() { if [ "$1" = 2 ]; then echo set; else echo unset; fi; }
ours_uboot() { "$ours" uboot u-ours.bin "$size" "$(verb $#)" "$@"; }
fw_uboot() { fw_set u-fw.config "$@"; }

uboot_ours_read_by_fw() {
	head -c $((size)) /dev/zero > u-ours.bin
	apply ours_uboot "${uboot_edits[@]}" || return 1
	same "fw_printenv's listing" "$uboot_expected" "$(fw_print u-ours.config)"
}
uboot_fw_read_by_ours() {
	head -c $((size)) /dev/zero > u-fw.bin
	apply fw_uboot "${uboot_edits[@]}" || return 1
	same "our listing" "$uboot_expected" "$("$ours" uboot u-fw.bin "$size" list)"
}
uboot_same_bytes() {
	cmp u-ours.bin u-fw.bin
}
uboot_erased_flash() {
	head -c $((size)) /dev/zero | tr '\0' '\377' > u-ours.bin
	cp u-ours.bin u-fw.bin
	ours_uboot k v && fw_uboot k v && cmp u-ours.bin u-fw.bin
}
check uboot_ours_read_by_fw_printenv uboot_ours_read_by_fw
check uboot_fw_setenv_read_by_ours uboot_fw_read_by_ours
check uboot_same_edits_give_the_same_bytes uboot_same_bytes
check uboot_same_bytes_on_erased_flash uboot_erased_flash

# ---- U-Boot, the redundant pair: both copies in one file --------------------------
rsize=0x1000
for w in ours fw; do
	printf '%s 0x0 %s\n%s %s %s\n' "$work/r-$w.bin" "$rsize" "$work/r-$w.bin" "$rsize" "$rsize" \
		> "r-$w.config"
done
ours_r() { "$ours" uboot-redundant r-ours.bin "$rsize" "$(verb $#)" "$@"; }
fw_r() { fw_set r-fw.config "$@"; }

redundant_both_ways() {
	head -c $((2 * rsize)) /dev/zero > r-ours.bin
	head -c $((2 * rsize)) /dev/zero > r-fw.bin
	apply ours_r "${uboot_edits[@]}" && apply fw_r "${uboot_edits[@]}" || return 1
	same "fw_printenv's listing of ours" "$uboot_expected" "$(fw_print r-ours.config)" &&
		same "our listing of fw_setenv's" "$uboot_expected" \
			"$("$ours" uboot-redundant r-fw.bin "$rsize" list)"
}
# The flag byte is outside the CRC: set near 255 here, the next writes take it
# through 255 -> 0 (U-Boot has a rule for each copy holding the 255).
# shellcheck disable=SC2059 # the format is the byte, an octal escape
flags_near_wrap() { # file flag0 flag1 (octal)
	printf "\\$2" | dd of="$1" bs=1 seek=4 conv=notrunc status=none &&
		printf "\\$3" | dd of="$1" bs=1 seek=$((rsize + 4)) conv=notrunc status=none
}
flags_of() { # file: "copy0,copy1"
	echo "$(od -An -tu1 -j4 -N1 "$1" | tr -d ' '),$(od -An -tu1 -j$((rsize + 4)) -N1 "$1" | tr -d ' ')"
}
redundant_flag_wrap() {
	local i
	# 250 (read) and 249: 255 comes in copy 1
	flags_near_wrap r-ours.bin 372 371 && flags_near_wrap r-fw.bin 372 371 || return 1
	for i in $(seq 1 12); do
		ours_r n "$i" && fw_r n "$i" || return 1
		cmp r-ours.bin r-fw.bin || { echo "after write $i"; return 1; }
	done
	# from 250 in copy 0: write 12 (flag 262 mod 256) in copy 0, write 11 in copy 1
	same "flags of copy 0 and 1" "6,5" "$(flags_of r-ours.bin)"
}
# one writer, then the other, on the same pair: each finds the copy the other wrote last
redundant_interleaved() {
	local i got
	cp r-fw.bin r-mixed.bin
	sed 's/r-fw\.bin/r-mixed.bin/g' r-fw.config > r-mixed.config
	# 249 and 250 (read): 255 comes in copy 0
	flags_near_wrap r-mixed.bin 371 372 || return 1
	for i in $(seq 1 12); do
		if [ $((i % 2)) = 1 ]; then
			"$ours" uboot-redundant r-mixed.bin "$rsize" set n "m$i" || return 1
			got=$(fw_printenv -c r-mixed.config -f /dev/null n 2>&1)
		else
			fw_set r-mixed.config n "m$i" || return 1
			got=$("$ours" uboot-redundant r-mixed.bin "$rsize" list | grep '^n=')
		fi
		same "n after write $i" "n=m$i" "$got" || return 1
	done
	same "flags of copy 0 and 1" "5,6" "$(flags_of r-mixed.bin)"
}
check redundant_each_reads_the_others redundant_both_ways
check redundant_same_bytes_through_the_flag_wrap redundant_flag_wrap
check redundant_interleaved_writers_agree redundant_interleaved

# ---- GRUB environment block -----------------------------------------------------------
grub_sets=("a=1" 'path=C:\dir' "lines=l1
l2\\" "empty=" "z=last")
grub_expected='a=22
lines=l1
l2\
empty=
z=last
new=appended'
grub_create() {
	"$ours" grub g-ours create && grub-editenv g-fw create && cmp g-ours g-fw
}
grub_same() {
	"$ours" grub g-ours set "${grub_sets[@]}" && grub-editenv g-fw set "${grub_sets[@]}" &&
		"$ours" grub g-ours set a=22 && grub-editenv g-fw set a=22 &&
		"$ours" grub g-ours unset path && grub-editenv g-fw unset path &&
		"$ours" grub g-ours set new=appended && grub-editenv g-fw set new=appended || return 1
	cmp g-ours g-fw
}
grub_read_each() {
	same "grub-editenv's listing of ours" "$grub_expected" "$(grub-editenv g-ours list)" &&
		same "our listing of grub-editenv's" "$grub_expected" "$("$ours" grub g-fw list)"
}
check grub_create_gives_the_same_block grub_create
check grub_same_edits_give_the_same_bytes grub_same
check grub_each_reads_the_others grub_read_each
