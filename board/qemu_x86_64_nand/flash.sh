#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flash image of qemu_x86_64_nand: UBI over the whole 32 MiB flash: the
# static rootfs volume and the one-LEB strata_log volume (boot-outcome
# record) are in the image, as in a sysupgrade image; the init creates
# rootfs_data in the free space on first boot.
set -eu
FLASH_SIZE=33554432     # 256 erase blocks of 128 KiB
PEB=131072

cfg="$IMAGES/.ubinize.cfg"
cat > "$cfg" <<EOC
[rootfs]
mode=ubi
image=$ROOTFS_IMG
vol_id=0
vol_type=static
vol_name=rootfs
[strata_log]
mode=ubi
vol_id=1
vol_type=dynamic
vol_size=130944
vol_name=strata_log
EOC
# add-on layers: static volumes named after them, as the root
id=2
for entry in ${ADDON_IMGS:-}; do
	cat >> "$cfg" <<EOC
[${entry%%=*}]
mode=ubi
image=${entry#*=}
vol_id=$id
vol_type=static
vol_name=${entry%%=*}
EOC
	id=$((id + 1))
done
ubinize -o "$IMAGES/flash-ubi.img" -p "$PEB" -m 1 -Q 0 "$cfg"
rm -f "$cfg"
size=$(stat -c %s "$IMAGES/flash-ubi.img")
[ "$size" -le "$FLASH_SIZE" ] || { echo "flash.sh: UBI image ($size bytes) exceeds the flash" >&2; exit 1; }
# the device's flash: kept across builds unless the UBI image changed (its
# static volumes are the firmware: a new one starts the flash over, loudly);
# make flash-erase starts over too
disk="$IMAGES/flash-data.bin"
sum=$(sha256sum < "$IMAGES/flash-ubi.img")
if [ -f "$disk" ] && [ "$sum" = "$(cat "$IMAGES/.flash-data.ubi" 2>/dev/null)" ]; then
	exit 0
fi
[ -f "$disk" ] && echo "flash.sh: new UBI image (firmware): $disk starts over"
{ cat "$IMAGES/flash-ubi.img"; head -c $((FLASH_SIZE - size)) /dev/zero | tr '\000' '\377'; } \
	> "$disk"
echo "$sum" > "$IMAGES/.flash-data.ubi"
