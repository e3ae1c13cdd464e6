#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Disk image of qemu_x86_64_emmc: mkverity splits the root tree into the
# object store and the metadata tree; the metadata squashfs goes to the GPT
# partition "meta", the store to objects/ on the partition "data", ext4 or
# f2fs as the flash back end says (UPPER_FS), with the fs-verity feature; the
# manifest names meta.squashfs (ROOT_IMAGE in board.mk). Built without root
# privileges for the disk (sfdisk, mke2fs -d and sload.f2fs work on files);
# mkverity itself needs root for the trusted.* xattrs.
set -eu
: "${ROOTFS_DIR:?}" "${UPPER_FS:?}" "${MKVERITY:?}" "${BUILD:?}" "${IMAGES:?}" "${SOURCE_DATE_EPOCH:?}"
MIB=1048576
DATA_MIB=64             # beyond the store: room for the uppers
UUID=5e1f0c4a-7d2b-4e6a-9b1c-3a5d7e9f0b21

work="$BUILD/emmc"
rm -rf "$work"
mkdir -p "$work/data"
"$MKVERITY" tree ${MKVERITY_QUIET:+-q} "$ROOTFS_DIR" "$work/data/objects" "$work/meta"
mksquashfs "$work/meta" "$IMAGES/meta.squashfs" -noappend -all-root -comp xz -quiet \
	-no-progress >/dev/null
fsverity digest --compact --hash-alg=sha256 --block-size=4096 "$IMAGES/meta.squashfs" \
	> "$work/meta.digest"

store_kib=$(du -sk "$work/data" | cut -f1)
data_mib=$((DATA_MIB + store_kib * 2 / 1024))
data="$work/data.$UPPER_FS"
rm -f "$data"
case "$UPPER_FS" in
ext4)
	E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mke2fs -q -t ext4 -b 4096 -O verity -L data -U "$UUID" \
		-E hash_seed="$UUID",root_owner=0:0 -d "$work/data" "$data" "${data_mib}M" >/dev/null
	# mke2fs -d copies ctime and atime, which nothing can set on the source tree
	(cd "$work/data" && find . | sort) | sed -e 's|^\.||' -e 's|^$|/|' | while read -r p; do
		printf 'sif "%s" ctime @%s\nsif "%s" atime @%s\n' "$p" "$SOURCE_DATE_EPOCH" "$p" \
			"$SOURCE_DATE_EPOCH"
	done > "$work/times.debugfs"
	E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f "$work/times.debugfs" "$data" \
		>/dev/null 2>"$work/times.log" || { cat "$work/times.log" >&2; exit 1; }
	;;
f2fs)
	# extra_attr,verity: fs-verity on f2fs; -T and -U: the same image from the same tree
	truncate -s "${data_mib}M" "$data"
	mkfs.f2fs -q -f -O extra_attr,verity -l data -U "$UUID" -T "$SOURCE_DATE_EPOCH" "$data" \
		>/dev/null
	sload.f2fs -f "$work/data" -t / -T "$SOURCE_DATE_EPOCH" "$data" > "$work/sload.log" 2>&1 ||
		{ cat "$work/sload.log" >&2; exit 1; }
	;;
*)
	echo "flash.sh: no $UPPER_FS data partition on this board (ext4 or f2fs)" >&2
	exit 1
	;;
esac

meta_mib=$(( ($(stat -c %s "$IMAGES/meta.squashfs") + MIB - 1) / MIB + 1))
total_mib=$((1 + meta_mib + data_mib + 1))
# the device's flash: kept across builds unless its metadata image changed
# (a new image needs its own objects: the disk starts over, loudly)
disk="$IMAGES/flash-emmc.bin"
if [ -f "$disk" ] && cmp -s "$work/meta.digest" "$IMAGES/.flash-emmc.meta"; then
	exit 0
fi
[ -f "$disk" ] && echo "flash.sh: new metadata image: $disk starts over"
rm -f "$disk"
truncate -s "${total_mib}M" "$disk"
sfdisk -q --label gpt "$disk" <<EOS
label-id: 0B2C5E1A-6F3D-4B7E-8A9C-1D2E3F4A5B6C
start=2048, size=$((meta_mib * 2048)), name=meta, uuid=1A2B3C4D-0001-4000-8000-000000000001
size=$((data_mib * 2048)), name=data, uuid=1A2B3C4D-0002-4000-8000-000000000002
EOS
dd if="$IMAGES/meta.squashfs" of="$disk" bs=$MIB seek=1 conv=notrunc status=none
dd if="$data" of="$disk" bs=$MIB seek=$((1 + meta_mib)) conv=notrunc status=none
cp "$work/meta.digest" "$IMAGES/.flash-emmc.meta"
