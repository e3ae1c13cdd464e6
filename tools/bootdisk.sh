#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The boot media of a board whose U-Boot boots A/B slots (board/<board>/
# boot.cmd, uboot-env.txt): a GPT disk image and the CFI flash holding
# U-Boot's environment. No loop devices: the filesystem is made from a
# directory (mke2fs -d) and written into its partition.
#   1 boot         ext2, /boot.scr (boot.cmd through mkimage -T script)
#   2 bootenv      the boot counters: two 16 KiB U-Boot environments, at 0
#                  and 64 KiB (erased: boot.cmd starts the counters)
#   3 kernel_a     4 initramfs_a     5 kernel_b     6 initramfs_b
#   7 rootfs_a     8 rootfs_b        32 MiB each, raw: a slot's root layer
#                  (block2mtd over the partition, the kernel command line)
# Raw partitions start erased (0xff, as a flash leaves the factory).
# usage: tools/bootdisk.sh DISK FLASH BOARD_DIR [PART=FILE...]
# PART=FILE writes FILE at the start of partition PART (it must fit).
set -euo pipefail
die() { echo "bootdisk.sh: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: tools/bootdisk.sh DISK FLASH BOARD_DIR [PART=FILE...]"
disk=$1 flash=$2 board=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KIB=1024 MIB=1048576
# name and size of each partition, in order
parts=(boot:$((4 * MIB)) bootenv:$((256 * KIB))
	kernel_a:$((32 * MIB)) initramfs_a:$((8 * MIB)) kernel_b:$((32 * MIB)) initramfs_b:$((8 * MIB))
	rootfs_a:$((32 * MIB)) rootfs_b:$((32 * MIB)))

mkdir "$tmp/boot"
grep -v '^#' "$board/boot.cmd" > "$tmp/boot.cmd"
# (mkimage dates the script SOURCE_DATE_EPOCH)
SOURCE_DATE_EPOCH=1 mkimage -q -A arm64 -O linux -T script -C none -d "$tmp/boot.cmd" "$tmp/boot/boot.scr" > /dev/null
# fixed timestamps and UUIDs: the same inputs give the same image
export E2FSPROGS_FAKE_TIME=1 # (0 means the real time)
find "$tmp/boot" -exec touch -h -d @1 {} +
mke2fs -q -t ext2 -U clear -E hash_seed=5374726b-0000-4000-8000-000000000000 \
	-d "$tmp/boot" "$tmp/boot.ext2" 4M > /dev/null
# mke2fs -d copies the change time, which only debugfs sets
printf 'sif / ctime @1\nsif /boot.scr ctime @1\n' | debugfs -w -f - "$tmp/boot.ext2" > /dev/null 2>&1

start=2048 script="label: gpt
label-id: 5374726b-0000-4000-8000-000000000000
"
declare -A offset size
i=0
for p in "${parts[@]}"; do
	name=${p%%:*} bytes=${p#*:}
	i=$((i + 1))
	offset[$name]=$((start * 512)) size[$name]=$bytes
	script+="start=$start, size=$((bytes / 512)), name=$name, uuid=5374726b-0000-4000-8000-$(printf %012d $i)
"
	start=$((start + bytes / 512))
done
rm -f "$disk"
truncate -s $(((start + 2048) * 512)) "$disk"
sfdisk -q "$disk" <<< "$script"
put() { # PART FILE
	[ -n "${offset[$1]:-}" ] || die "no partition '$1' (partitions: ${!offset[*]})"
	local n
	n=$(stat -L -c %s "$2")
	[ "$n" -le "${size[$1]}" ] || die "'$2' ($n bytes) does not fit partition $1 (${size[$1]} bytes)"
	dd if="$2" of="$disk" bs=1M oflag=seek_bytes seek="${offset[$1]}" conv=notrunc status=none
}
put boot "$tmp/boot.ext2"
for p in bootenv rootfs_a rootfs_b; do
	head -c "${size[$p]}" /dev/zero | tr '\0' '\377' > "$tmp/erased"
	put $p "$tmp/erased"
done
for a in "$@"; do
	[[ $a == *=* ]] || die "'$a': expected PART=FILE"
	put "${a%%=*}" "${a#*=}"
done

# QEMU's virt machine: the second CFI flash is 64 MiB; U-Boot's environment
# is its first 256 KiB
grep -v '^#' "$board/uboot-env.txt" | mkenvimage -s 0x40000 -o "$tmp/env.bin" -
{ cat "$tmp/env.bin"; head -c $((64 * MIB - 256 * KIB)) /dev/zero | tr '\0' '\377'; } > "$flash"
