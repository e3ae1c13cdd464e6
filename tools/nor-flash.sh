#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash images of the QEMU NOR boards, whose layouts differ only in where
# their memory-mapped regions sit. Called by a board's flash.sh with
# ROOTFS_IMG, ADDON_IMGS ("NAME=IMAGE ...") and IMAGES from tools/mkimages.sh
# and ROOTFS_BASE, ADDONS_BASE (the physical addresses of the two regions)
# from the board. The phram declarations of every partition go to the init's
# module list ($BUILD/modules.flash), not to the kernel command line: a
# built-in phram keeps only the command line's last phram= (the user's own).
# The rootfs partition is the first region (32 MiB; with ROOTFS_GROWS=y from
# a board whose qemu.sh reads its size, as large as a larger root, rounded
# up to a MiB, when there are no add-ons); add-on layers are partitions of
# the second (16 MiB), which the board's qemu.sh declares to phram.
set -eu
: "${ROOTFS_BASE:?}" "${ADDONS_BASE:?}" "${BUILD:?}"
ROOTFS_SIZE=33554432    # the rootfs partition
DATA_SIZE=8388608       # rootfs_data: 64 erase blocks of 128 KiB
LOG_SIZE=262144         # strata_log: 2 erase blocks

size=$(stat -c %s "$ROOTFS_IMG")
if [ "$size" -gt "$ROOTFS_SIZE" ] && [ "${ROOTFS_GROWS:-}" = y ] && [ -z "${ADDON_IMGS:-}" ]; then
	ROOTFS_SIZE=$(((size + 1048575) / 1048576 * 1048576))
elif [ "$size" -gt "$ROOTFS_SIZE" ]; then
	echo "nor-flash.sh: root squashfs ($size bytes) does not fit the $ROOTFS_SIZE-byte rootfs partition${ADDON_IMGS:+ (a larger root leaves no room for add-ons)}" >&2
	exit 1
fi
# erased NOR reads 0xff
erased() { head -c "$1" /dev/zero | tr '\000' '\377'; }
{ cat "$ROOTFS_IMG"; erased $((ROOTFS_SIZE - size)); } > "$IMAGES/flash-rootfs.bin"
ADDONS_SIZE=16777216
SECTOR=131072
rm -f "$IMAGES/flash-addons.bin" "$IMAGES/flash-addons.phram"
phram="phram=rootfs,$ROOTFS_BASE,$ROOTFS_SIZE,$SECTOR"
if [ -n "${ADDON_IMGS:-}" ]; then
	off=0
	for entry in $ADDON_IMGS; do
		name=${entry%%=*} img=${entry#*=}
		len=$((($(stat -c %s "$img") + SECTOR - 1) / SECTOR * SECTOR))
		if [ $((off + len)) -gt "$ADDONS_SIZE" ]; then
			echo "nor-flash.sh: add-on layers exceed the $ADDONS_SIZE-byte add-on flash" >&2
			exit 1
		fi
		{ cat "$img"; erased $((len - $(stat -c %s "$img"))); } >> "$IMAGES/flash-addons.bin"
		echo "$name,$((ADDONS_BASE + off)),$len,$SECTOR" >> "$IMAGES/flash-addons.phram"
		phram="$phram phram=$name,$((ADDONS_BASE + off)),$len,$SECTOR"
		off=$((off + len))
	done
fi
echo "phram $phram" > "$BUILD/modules.flash"
# the data flash is the device's persistent state: written only when absent
# (make flash-erase starts over)
[ -f "$IMAGES/flash-data.bin" ] || erased "$DATA_SIZE" > "$IMAGES/flash-data.bin"
[ -f "$IMAGES/flash-log.bin" ] || erased "$LOG_SIZE" > "$IMAGES/flash-log.bin"
