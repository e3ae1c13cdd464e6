#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Assembles a board's images from the strata binary, the kernel package, the
# busybox root and the overlays. Called by the Makefile with its variables in
# the environment; every input is sorted and dated SOURCE_DATE_EPOCH so the
# same configuration gives byte-identical images.
set -euo pipefail
: "${TOPDIR:?}" "${BUILD:?}" "${IMAGES:?}" "${BOARD_DIR:?}" "${KERNEL_DIR:?}"
: "${STRATA_BIN:?}" "${MKCPIO:?}" "${MKVERITY:?}" "${BUSYBOX:?}" "${SOURCE_DATE_EPOCH:?}"
: "${OVERLAYS:=}" "${EMERGENCY_SHELL:=y}" "${INITRAMFS_COMP:=xz}" "${VERITY:=}" "${ROOT_PART:=rootfs}"
export SOURCE_DATE_EPOCH

step() { printf '  %-7s %s\n' "$1" "$2"; }

mkdir -p "$IMAGES"

# ---- root filesystem: busybox + overlays + strata -------------------------
rootfs="$BUILD/rootfs"
rm -rf "$rootfs"
mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,dev,proc,sys,run,tmp,root,lib,mnt}
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/root"
step ROOTFS "busybox $("$BUSYBOX" 2>&1 | head -n 1 | awk '{print $2}')"
install -m 0755 "$BUSYBOX" "$rootfs/bin/busybox"
"$BUSYBOX" --list-full | sort | while read -r applet; do
	[ -e "$rootfs/$applet" ] && continue
	depth=$(($(tr -cd / <<<"$applet" | wc -c)))
	rel=$(printf '../%.0s' $(seq 1 "$depth"))bin/busybox
	ln -s "$rel" "$rootfs/$applet"
done
install -m 0755 "$STRATA_BIN" "$rootfs/sbin/strata"
# OpenWrt's names for a full reset
ln -sf strata "$rootfs/sbin/firstboot"
ln -sf strata "$rootfs/sbin/factoryreset"
for ov in $OVERLAYS; do
	case "$ov" in /*) ;; *) ov="$TOPDIR/$ov" ;; esac
	[ -d "$ov" ] || { echo "mkimages: overlay directory '$ov' does not exist" >&2; exit 1; }
	step OVERLAY "${ov#"$TOPDIR"/}"
	cp -a --no-preserve=ownership "$ov/." "$rootfs/"
done
step SQUASH rootfs.squashfs
find "$rootfs" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mksquashfs "$rootfs" "$IMAGES/rootfs.squashfs" -noappend -all-root -comp xz \
	-quiet -no-progress \
	>/dev/null

# ---- flash images (board specific) -----------------------------------------
step FLASH "$(basename "$BOARD_DIR")"
# ROOTFS_DIR: the tree, for boards that split it (mkverity)
ROOTFS_IMG="$IMAGES/rootfs.squashfs" IMAGES="$IMAGES" ROOTFS_DIR="$rootfs" BUILD="$BUILD" \
	MKVERITY="$MKVERITY" "$BOARD_DIR/flash.sh"

# ---- manifest: the digest of every layer, pinned by the initramfs ------------
# LAYERS: NAME=IMAGE[:optional] words, in mount order (top first)
: "${LAYERS:=$ROOT_PART=$IMAGES/rootfs.squashfs}"
rm -f "$IMAGES/manifest"
if [ "$VERITY" = y ]; then
	step VERITY "$(echo "$LAYERS" | wc -w) layer(s)"
	# shellcheck disable=SC2086
	"$TOPDIR/tools/mkmanifest.sh" "$IMAGES/manifest" $LAYERS
fi

# ---- initramfs ----------------------------------------------------------------
initramfs="$BUILD/initramfs"
rm -rf "$initramfs"
mkdir -p "$initramfs"
"$TOPDIR/tools/mkmodules.sh" "$BOARD_DIR/modules" "$KERNEL_DIR" "$initramfs/modules.list" \
	"$initramfs/modules"
list="$BUILD/initramfs.list"
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/kmsg 0644 0 0 c 1 11"
	echo "nod /dev/null 0666 0 0 c 1 3"
	for d in /proc /sys /run /newroot /etc /etc/strata /lib /lib/modules /bin /sbin; do
		echo "dir $d 0755 0 0"
	done
	echo "file /init $STRATA_BIN 0755 0 0"
	echo "file /etc/strata/modules $initramfs/modules.list 0644 0 0"
	echo "file /etc/strata/modules.dep $initramfs/modules.list.dep 0644 0 0"
	[ "$VERITY" != y ] || echo "file /etc/strata/manifest $IMAGES/manifest 0644 0 0"
	for m in $(cd "$initramfs/modules" && ls | sort); do
		echo "file /lib/modules/$m $initramfs/modules/$m 0644 0 0"
	done
	if [ "$EMERGENCY_SHELL" = y ]; then
		echo "file /bin/busybox $BUSYBOX 0755 0 0"
		"$BUSYBOX" --list-full | sort | while read -r applet; do
			case "$applet" in bin/busybox | linuxrc) continue ;; esac
			echo "slink /$applet /bin/busybox 0777 0 0"
		done | grep -v -E '^slink /(usr/|sbin/init )' || true
	fi
} > "$list"
case "$INITRAMFS_COMP" in
xz) out="$IMAGES/initramfs.cpio.xz"; comp=(xz -9 --check=crc32 -T1) ;;
gzip) out="$IMAGES/initramfs.cpio.gz"; comp=(gzip -9 -n) ;;
*) echo "mkimages: unknown initramfs compression '$INITRAMFS_COMP'" >&2; exit 1 ;;
esac
step CPIO "$(basename "$out")"
rm -f "$IMAGES"/initramfs.cpio.*
"$MKCPIO" "$list" | "${comp[@]}" > "$out"

# ---- kernel and start-qemu.sh ------------------------------------------------
install -m 0644 "$KERNEL_DIR/kernel" "$IMAGES/kernel"
{
	sed -e "s|@BOARD@|$(basename "$BOARD_DIR")|" -e "s|@INITRAMFS@|$(basename "$out")|" \
		"$TOPDIR/tools/start-qemu.sh.in" | sed '/@BOARD_QEMU@/,$d'
	cat "$BOARD_DIR/qemu.sh"
	sed '1,/@BOARD_QEMU@/d' "$TOPDIR/tools/start-qemu.sh.in"
} > "$IMAGES/start-qemu.sh"
chmod 0755 "$IMAGES/start-qemu.sh"

echo "images in $IMAGES:"
(cd "$IMAGES" && for f in $(ls | sort); do
	printf '  %-22s %10s bytes\n' "$f" "$(stat -L -c %s "$f")"
done)
