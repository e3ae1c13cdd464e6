#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of qemu_x86_64_nor. Called by tools/mkimages.sh with
# ROOTFS_IMG and IMAGES set; the layout matches modules and qemu.sh.
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
# the data flash is the device's persistent state: written only when absent
# (make flash-erase starts over)
[ -f "$IMAGES/flash-data.bin" ] || erased "$DATA_SIZE" > "$IMAGES/flash-data.bin"
[ -f "$IMAGES/flash-log.bin" ] || erased "$LOG_SIZE" > "$IMAGES/flash-log.bin"
