#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The A/B boot counting of board/qemu_x86_64_nor/grub.cfg in a real
# bootloader: Debian's GRUB for BIOS (grub-pc-bin) under qemu-system-x86_64,
# started as a kernel (lnxboot.img) with a boot disk laid out as
# tools/grubdisk.sh lays it out. The slots' kernels are a stand-in
# (tests/cmdline_kernel.S) that prints the command line GRUB gave it and
# resets (QEMU -no-reboot ends there): every run is one try, and the
# counters it saved are read back by grub-editenv and by
# strata's own environment code (tests/bootenv_tool.c over
# init/lib/bootenv.c), which also makes the edits the running system makes
# (mark good).
# Prints PASS/FAIL lines; exits 77 with the reason as its last line when a
# tool is missing (make deps installs them).
# usage: tests/grub.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$1
for tool in gcc as objcopy qemu-system-x86_64 grub-mkimage grub-editenv sfdisk mke2fs debugfs; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool not installed (packages gcc, qemu-system-x86, grub-common, fdisk, e2fsprogs: make deps)"
		exit 77
	fi
done
if [ ! -f /usr/lib/grub/i386-pc/lnxboot.img ]; then
	echo "/usr/lib/grub/i386-pc not installed (package grub-pc-bin: make deps)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

warnings=$(make -s -C "$top" print-warnings)
# shellcheck disable=SC2086
if ! gcc -std=gnu11 -O1 $warnings -I"$top/init/lib" -o bootenv_tool "$top/tests/bootenv_tool.c" \
	"$top/init/lib/bootenv.c" "$top/init/lib/record.c" "$top/init/lib/strbuf.c" 2> build.log; then
	echo "FAIL grub/build: tests/bootenv_tool.c does not compile: $(head -c 2000 build.log)"
	exit 1
fi
if ! { as --32 -o cmdline_kernel.o "$top/tests/cmdline_kernel.S" &&
	objcopy -O binary -j .text cmdline_kernel.o cmdline_kernel; } 2> build.log; then
	echo "FAIL grub/build: tests/cmdline_kernel.S does not assemble: $(head -c 2000 build.log)"
	exit 1
fi
echo "an initramfs" > initramfs
if ! "$top/tools/grubdisk.sh" disk.img grub.lnx "$top/board/qemu_x86_64_nor" \
	kernel_a=cmdline_kernel initramfs_a=initramfs kernel_b=cmdline_kernel \
	initramfs_b=initramfs 2> layout.log; then
	echo "FAIL grub/layout: tools/grubdisk.sh: $(head -c 2000 layout.log)"
	exit 1
fi
# the same inputs, a second later, lay out the same bytes
sleep 1
if "$top/tools/grubdisk.sh" again.img again.lnx "$top/board/qemu_x86_64_nor" \
	kernel_a=cmdline_kernel initramfs_a=initramfs kernel_b=cmdline_kernel \
	initramfs_b=initramfs 2>> layout.log && cmp -s disk.img again.img && cmp -s grub.lnx again.lnx; then
	echo "PASS grub/layout_is_reproducible"
else
	echo "FAIL grub/layout_is_reproducible: a second layout of the same inputs differs"
fi
rm -f again.img again.lnx
# where GRUB's environment block is: /grubenv's one block in the boot
# partition (ext2, 1 KiB blocks), which save_env rewrites in place
boot_off=$(($(sfdisk -d disk.img | awk -F'[=,]' '/name="boot"/ {print $2}') * 512))
dd if=disk.img of=boot.ext2 bs=1M iflag=skip_bytes skip="$boot_off" count=4 status=none
block=$(debugfs -R 'bmap /grubenv 0' boot.ext2 2> /dev/null)
if ! [[ $block =~ ^[0-9]+$ ]] || [ "$block" = 0 ]; then
	echo "FAIL grub/layout: no block of /grubenv in the boot partition: '$block'"
	exit 1
fi
env_off=$((boot_off + block * 1024))

# one power-on: GRUB runs grub.cfg, which takes a slot, saves the counters
# and starts the slot's kernel, which prints its command line; the console is in boot.log, and
# that of every run in boot.N.log
runs=0
power_on() {
	runs=$((runs + 1))
	timeout 60 qemu-system-x86_64 -M pc -m 128 -nographic -no-user-config -nic none \
		-no-reboot -kernel grub.lnx -drive "if=ide,format=raw,file=disk.img" \
		< /dev/null > boot.log 2>&1
	cp boot.log "boot.$runs.log"
	# GRUB's and SeaBIOS's terminal escapes and its banner land anywhere in a line
	tr -d '\r' < boot.log | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' |
		grep -o 'strata-\(boot\|kernel\):.*' > said.log
}
get_env() { # the environment block to grubenv
	dd if=disk.img of=grubenv bs=1 skip="$env_off" count=1024 status=none
}
put_env() { # the environment block from grubenv, in place, as save_env writes it
	dd if=grubenv of=disk.img bs=1 seek="$env_off" conv=notrunc status=none
}
expect() { # name "what GRUB says" "counters after"
	local name=$1 said=$2 want=$3 editenv ours
	get_env
	editenv=$(grub-editenv grubenv list 2>&1 | sort | tr '\n' ' ')
	ours=$(./bootenv_tool grub grubenv list 2>&1 | sort | tr '\n' ' ')
	if ! grep -qF -- "$said" said.log; then
		echo "FAIL grub/$name: GRUB did not say '$said'; it said: $(tr '\n' '|' < said.log) (console: $work/boot.$runs.log)"
	elif [ "$editenv" != "$want" ] || [ "$ours" != "$want" ]; then
		echo "FAIL grub/$name: counters wanted '$want'; grub-editenv: '$editenv', ours: '$ours'"
	else
		echo "PASS grub/$name"
	fi
}

power_on
expect fresh_environment_gives_both_slots_three_tries "no boot counters" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=3 BOOT_ORDER=A B "
expect first_try_is_slot_a "slot A (2 tries left after this one)" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=3 BOOT_ORDER=A B "
expect kernel_command_line_names_the_slot \
	"strata-kernel: command line: BOOT_IMAGE=(hd0,gpt2)/kernel console=ttyS0 panic=-1 strata.slot=A" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=3 BOOT_ORDER=A B "
power_on
expect second_try_decrements "slot A (1 tries left" \
	"BOOT_A_LEFT=1 BOOT_B_LEFT=3 BOOT_ORDER=A B "
power_on
expect third_try_spends_the_last "slot A (0 tries left" \
	"BOOT_A_LEFT=0 BOOT_B_LEFT=3 BOOT_ORDER=A B "
power_on
expect slot_without_tries_falls_back_to_the_next "slot B (2 tries left" \
	"BOOT_A_LEFT=0 BOOT_B_LEFT=2 BOOT_ORDER=A B "
expect kernel_command_line_of_b_names_b \
	"strata-kernel: command line: BOOT_IMAGE=(hd0,gpt3)/kernel console=ttyS0 panic=-1 strata.slot=B" \
	"BOOT_A_LEFT=0 BOOT_B_LEFT=2 BOOT_ORDER=A B "

# the running system marks slot A good: our code writes the block
get_env && ./bootenv_tool grub grubenv set BOOT_A_LEFT=3 && put_env
power_on
expect marked_good_by_strata_is_taken_again "slot A (2 tries left" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=2 BOOT_ORDER=A B "

# grub-editenv changes the order
get_env && grub-editenv grubenv set "BOOT_ORDER=B A" && put_env
power_on
expect order_set_by_grub_editenv_is_followed "slot B (1 tries left" \
	"BOOT_A_LEFT=2 BOOT_B_LEFT=1 BOOT_ORDER=B A "

# no slot has tries left: all get them back, and the board resets
get_env && ./bootenv_tool grub grubenv set BOOT_A_LEFT=0 BOOT_B_LEFT=0 && put_env
power_on
expect no_tries_left_anywhere_resets_the_counters "no slot has tries left" \
	"BOOT_A_LEFT=3 BOOT_B_LEFT=3 BOOT_ORDER=B A "
if grep -q "slot [AB] (" said.log; then
	echo "FAIL grub/no_tries_left_boots_nothing: $(tr '\n' '|' < said.log)"
else
	echo "PASS grub/no_tries_left_boots_nothing"
fi
# a slot's partition is what it boots: a missing one is named, and the try is spent
sfdisk -q --delete disk.img 3 2> /dev/null # boot_b (tools/grubdisk.sh)
power_on
expect missing_slot_partition_spends_the_try "slot B did not start" \
	"BOOT_A_LEFT=3 BOOT_B_LEFT=2 BOOT_ORDER=B A "
