#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_x86_64_nor. Called by tools/mkimages.sh with
# ROOTFS_IMG, ADDON_IMGS ("NAME=IMAGE ...") and IMAGES set; the layout
# matches modules and qemu.sh. Add-on layers are partitions of a second
# memory-mapped NOR region (16 MiB at 224 MiB) that qemu.sh declares to phram.
set -eu
ROOTFS_SIZE=33554432    # rootfs partition, NOR at 192 MiB
DATA_SIZE=8388608       # rootfs_data: 64 erase blocks of 128 KiB
LOG_SIZE=262144         # strata_log: 2 erase blocks

size=$(stat -c %s "$ROOTFS_IMG")
if [ "$size" -gt "$ROOTFS_SIZE" ]; then
	echo "flash.sh: root squashfs ($size bytes) does not fit the $ROOTFS_SIZE-byte rootfs partition" >&2
	exit 1
fi
# erased NOR reads 0xff
erased() { head -c "$1" /dev/zero | tr '\000' '\377'; }
{ cat "$ROOTFS_IMG"; erased $((ROOTFS_SIZE - size)); } > "$IMAGES/flash-rootfs.bin"
ADDONS_BASE=234881024   # 0xe000000
ADDONS_SIZE=16777216
SECTOR=131072
rm -f "$IMAGES/flash-addons.bin" "$IMAGES/flash-addons.phram"
if [ -n "${ADDON_IMGS:-}" ]; then
	off=0
	for entry in $ADDON_IMGS; do
		name=${entry%%=*} img=${entry#*=}
		len=$((($(stat -c %s "$img") + SECTOR - 1) / SECTOR * SECTOR))
		if [ $((off + len)) -gt "$ADDONS_SIZE" ]; then
			echo "flash.sh: add-on layers exceed the $ADDONS_SIZE-byte add-on flash" >&2
			exit 1
		fi
		{ cat "$img"; erased $((len - $(stat -c %s "$img"))); } >> "$IMAGES/flash-addons.bin"
		echo "$name,$((ADDONS_BASE + off)),$len,$SECTOR" >> "$IMAGES/flash-addons.phram"
		off=$((off + len))
	done
fi
# the data flash is the device's persistent state: written only when absent
# (make flash-erase starts over)
[ -f "$IMAGES/flash-data.bin" ] || erased "$DATA_SIZE" > "$IMAGES/flash-data.bin"
[ -f "$IMAGES/flash-log.bin" ] || erased "$LOG_SIZE" > "$IMAGES/flash-log.bin"
