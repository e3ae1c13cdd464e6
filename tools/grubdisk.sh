#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The boot media of a board whose GRUB boots A/B slots (board/<board>/
# grub.cfg): a GPT disk image and GRUB itself as a file QEMU starts with
# -kernel. No loop devices and nothing installed into the disk's boot
# sectors: GRUB for BIOS (i386-pc) is made with grub-mkimage and put behind
# lnxboot.img, which gives it the Linux boot protocol, so QEMU (or any Linux
# boot loader) starts it as a kernel; it reads and writes the disk through
# the BIOS. The filesystems are made from directories (mke2fs -d) and written
# into their partitions.
#   1 boot      ext2: /grub.cfg (the board's), /grubenv (GRUB's environment
#               block, no variables: grub.cfg starts the counters)
#   2 boot_a    ext2: slot A's /kernel and /initramfs
#   3 boot_b    ext2: the same of slot B
#   4 rootfs_a  32 MiB, raw: slot A's root layer (the board declares it to
#               block2mtd, the kernel command line in bootargs=)
#   5 rootfs_b  the same of slot B
# The disk must be the first BIOS disk (hd0): grub.cfg names its partitions.
# usage: tools/grubdisk.sh DISK LOADER BOARD_DIR [FILE=PATH...] [bootargs=ARGS]
# FILE is kernel_a, initramfs_a, kernel_b or initramfs_b: PATH becomes the
# slot's /kernel or /initramfs. A slot not given any is an empty filesystem.
# rootfs_a=PATH or rootfs_b=PATH writes PATH at the start of that partition
# (the rest stays erased, 0xff, as a flash leaves the factory).
# bootargs=ARGS puts the board's kernel command line in the factory
# environment (strata_bootargs, which grub.cfg uses instead of its own).
set -euo pipefail
die() { echo "grubdisk.sh: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: tools/grubdisk.sh DISK LOADER BOARD_DIR [FILE=PATH...]"
disk=$1 loader=$2 board=$3
shift 3
grub=/usr/lib/grub/i386-pc
[ -f "$grub/lnxboot.img" ] || die "$grub/lnxboot.img not found (package grub-pc-bin)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MIB=1048576
# name and size of each partition, in order (grub.cfg: gpt1, gpt2, gpt3)
parts=(boot:$((4 * MIB)) boot_a:$((48 * MIB)) boot_b:$((48 * MIB))
	rootfs_a:$((32 * MIB)) rootfs_b:$((32 * MIB)))
declare -A raw

mkdir "$tmp/boot" "$tmp/boot_a" "$tmp/boot_b"
grep -v '^#' "$board/grub.cfg" > "$tmp/boot/grub.cfg"
grub-editenv "$tmp/boot/grubenv" create
for a in "$@"; do
	[[ $a == *=* ]] || die "'$a': expected FILE=PATH"
	name=${a%%=*}
	case $name in
	kernel_a | initramfs_a | kernel_b | initramfs_b)
		cp -- "${a#*=}" "$tmp/boot_${name#*_}/${name%_*}" ;;
	rootfs_a | rootfs_b)
		[ "$(stat -L -c %s -- "${a#*=}")" -le $((32 * MIB)) ] ||
			die "'${a#*=}' is larger than $name (32 MiB)"
		raw[$name]=${a#*=} ;;
	bootargs) grub-editenv "$tmp/boot/grubenv" set "strata_bootargs=${a#*=}" ;;
	*) die "'$name': expected kernel_a, initramfs_a, kernel_b, initramfs_b, rootfs_a, rootfs_b or bootargs" ;;
	esac
done
# the modules the script needs, in the image: there is no module directory
# on the disk. The early configuration gives GRUB the serial console and the
# boot partition; normal mode then runs its grub.cfg.
cat > "$tmp/early.cfg" <<- 'EOF'
	serial --unit=0 --speed=115200
	terminal_input serial
	terminal_output serial
	terminfo -g 250x24 serial dumb
	set root=(hd0,gpt1)
EOF
grub-mkimage -O i386-pc -o "$tmp/core.img" -c "$tmp/early.cfg" -p '(hd0,gpt1)/' \
	biosdisk part_gpt ext2 loadenv test echo linux reboot normal serial terminal
cat "$grub/lnxboot.img" "$tmp/core.img" > "$loader"

# fixed timestamps and UUIDs: the same inputs give the same image
export E2FSPROGS_FAKE_TIME=1 # (0 means the real time)
start=2048 script="label: gpt
label-id: 5374726b-0000-4000-8000-000000000000
"
declare -A offset
i=0
for p in "${parts[@]}"; do
	name=${p%%:*} bytes=${p#*:}
	i=$((i + 1))
	if [ -d "$tmp/$name" ]; then
		# 1 KiB blocks: /grubenv is one block, which save_env rewrites in place
		# (mke2fs makes up a hash seed for a null one; -d copies each file's
		# change time, which only debugfs sets)
		find "$tmp/$name" -exec touch -h -d @1 {} +
		mke2fs -q -t ext2 -b 1024 -U clear -E hash_seed=5374726b-0000-4000-8000-000000000000 \
			-d "$tmp/$name" "$tmp/$name.ext2" $((bytes / 1024)) > /dev/null
		(cd "$tmp/$name" && find . -mindepth 1) | sed 's|^\.||; s|.*|sif & ctime @1|' |
			{ echo 'sif / ctime @1' && cat; } | debugfs -w -f - "$tmp/$name.ext2" > /dev/null 2>&1
	else
		# a raw partition: erased flash, then what rootfs_X= gave
		head -c "$bytes" /dev/zero | tr '\0' '\377' > "$tmp/$name.ext2"
		if [ -n "${raw[$name]:-}" ]; then
			dd if="${raw[$name]}" of="$tmp/$name.ext2" conv=notrunc status=none
		fi
	fi
	offset[$name]=$((start * 512))
	script+="start=$start, size=$((bytes / 512)), name=$name, uuid=5374726b-0000-4000-8000-$(printf %012d $i)
"
	start=$((start + bytes / 512))
done
rm -f "$disk"
truncate -s $(((start + 2048) * 512)) "$disk"
sfdisk -q "$disk" <<< "$script"
for p in "${parts[@]}"; do
	name=${p%%:*}
	dd if="$tmp/$name.ext2" of="$disk" bs=1M oflag=seek_bytes seek="${offset[$name]}" \
		conv=notrunc status=none
done
