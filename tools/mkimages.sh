#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Assembles a board's images from the strata binary, the kernel package, the
# root tree that tools/mkrootfs.sh assembled and the add-ons. Called by the
# Makefile with its variables in the environment; every input is sorted and
# dated SOURCE_DATE_EPOCH so the same configuration gives byte-identical images.
set -euo pipefail
: "${TOPDIR:?}" "${BUILD:?}" "${IMAGES:?}" "${BOARD_DIR:?}" "${KERNEL_DIR:?}"
: "${STRATA_BIN:?}" "${MKCPIO:?}" "${MKVERITY:?}" "${BUSYBOX:?}" "${SOURCE_DATE_EPOCH:?}"
: "${EMERGENCY_SHELL:=y}" "${INITRAMFS_COMP:=xz}" "${ROOTFS:=}" "${ADDONS:=}"
: "${ROOT_PART:=rootfs}" "${UPPER_FS:?}"
: "${VERITY:=}" "${VERITY_MODE:=digest}" "${FEC_ROOTS:=0}" "${MODULES_XZ:=y}" "${ROOT_IMAGE:=rootfs.squashfs}"
: "${UPDATE_CONF:=}" "${UPDATE_KEY:=}" "${UPDATE_DEV_KEY:=n}" "${VERSION:=unknown}" "${BOARD:=}"
export SOURCE_DATE_EPOCH

# shellcheck source=tools/build-lib.sh
. "$TOPDIR/tools/build-lib.sh"

# Progress bars only where someone watches.
if [ -t 1 ]; then progress=(); else progress=(-no-progress); fi

# A squashfs lower from a tree: sorted by mksquashfs, every time SOURCE_DATE_EPOCH.
squash() { # TREE IMAGE [MKSQUASHFS OPTIONS]
	local tree=$1 img=$2
	shift 2
	find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	mksquashfs "$tree" "$img" -noappend -comp xz -quiet "${progress[@]}" "$@" >/dev/null
	rm -f "$img.dm-verity"
	[ "$VERITY" = y ] && [ "$VERITY_MODE" = dm-verity ] || return 0
	# dm-verity: the hash tree right after the data (no superblock: the
	# manifest pins length, root and salt); the salt is the image's own
	# sha256, so two builds of one tree are identical
	local bytes salt fec=() tail=""
	bytes=$(stat -c %s "$img")
	salt=$(sha256sum "$img" | cut -c1-64)
	format() {
		veritysetup format "$img" "$img" --no-superblock --hash=sha256 --data-block-size=4096 \
			--hash-block-size=4096 --data-blocks=$((bytes / 4096)) --hash-offset="$bytes" \
			--salt="$salt" --root-hash-file="$img.root" "$@" >/dev/null
	}
	format
	# forward error correction: Reed-Solomon parity over data and tree, after the tree
	if [ "$FEC_ROOTS" != 0 ]; then
		fec=(--fec-device="$img" --fec-offset="$(stat -c %s "$img")" --fec-roots="$FEC_ROOTS")
		format "${fec[@]}"
		tail=" fec=$FEC_ROOTS"
	fi
	echo "$bytes $(cat "$img.root") $salt$tail" > "$img.dm-verity"
	rm -f "$img.root"
}

mkdir -p "$IMAGES"
applets="$BUILD/busybox.applets"
busybox_applets "$applets"

# ---- root filesystem: $BUILD/rootfs, from tools/mkrootfs.sh ------------------
rootfs="$BUILD/rootfs"
[ -d "$rootfs" ] || die "no $rootfs (tools/mkrootfs.sh makes it)"
# the built-in root's files are root's; a root of the builder's keeps its owners
if [ -n "$ROOTFS" ]; then squash_opts=(); else squash_opts=(-all-root); fi
step SQUASH rootfs.squashfs
squash "$rootfs" "$IMAGES/rootfs.squashfs" "${squash_opts[@]}"

# ---- add-on layers: one squashfs lower each, top first -----------------------
lowers="$BUILD/lowers"
: > "$lowers"
addon_imgs=""
rm -f "$IMAGES"/addon-*.squashfs
rm -rf "$BUILD/addons"
for entry in $ADDONS; do
	path=${entry%:optional}
	name=$(basename "$path")
	name=${name%.tar*}
	name=${name%.tgz}
	[[ "$name" =~ ^[a-z0-9_-]{1,31}$ ]] ||
		die "add-on '$path': its name '$name' must be 1-31 characters of [a-z0-9_-]"
	[ "$name" != "$ROOT_PART" ] || die "add-on '$path' has the root partition's name '$name'"
	! grep -q "^$name\b" "$lowers" || die "two add-ons are named '$name'"
	[ "$(wc -l < "$lowers")" -lt 7 ] || die "at most 7 add-on layers"
	tree="$BUILD/addons/$name"
	mkdir -p "$tree"
	step ADDON "$name${entry#"$path"} ($path)"
	unpack_tree "add-on" "$path" "$tree"
	squash "$tree" "$IMAGES/addon-$name.squashfs"
	if [ "$entry" != "$path" ]; then echo "$name optional"; else echo "$name"; fi >> "$lowers"
	addon_imgs="$addon_imgs $name=$IMAGES/addon-$name.squashfs"
done

# ---- flash images (board specific) -----------------------------------------
step FLASH "$(basename "$BOARD_DIR")"
# the board's flash.sh may add module parameters known only once the images
# are laid out (NOR partitions' sizes): lines "MODULE PARAM..." in modules.flash
rm -f "$BUILD/modules.flash"
# ROOTFS_DIR: the tree, for boards that split it (mkverity)
# (IMAGES, BUILD, MKVERITY, UPPER_FS: from the environment, as this script has them)
ROOTFS_IMG="$IMAGES/rootfs.squashfs" ADDON_IMGS="${addon_imgs# }" ROOTFS_DIR="$rootfs" \
	"$BOARD_DIR/flash.sh"

# ---- manifest: the digest of every layer, pinned by the initramfs ------------
# NAME=IMAGE[:optional] words, in mount order (top first): add-ons, then the root
layers=""
while read -r name opt; do
	layers="$layers $name=$IMAGES/addon-$name.squashfs${opt:+:$opt}"
done < "$lowers"
layers="$layers $ROOT_PART=$IMAGES/$ROOT_IMAGE"  # ROOT_IMAGE: the board's root image
rm -f "$IMAGES/manifest"
if [ "$VERITY" = y ]; then
	step VERITY "manifest of $(echo "$layers" | wc -w) layer(s)"
	# shellcheck disable=SC2086
	"$TOPDIR/tools/mkmanifest.sh" "$IMAGES/manifest" $layers
fi

# ---- initramfs ----------------------------------------------------------------
initramfs="$BUILD/initramfs"
rm -rf "$initramfs"
mkdir -p "$initramfs"
# "@upper" in the board's list: the flash back end's upper filesystem
# (UPPER_FS), after the checksum it asks the crypto API for at mount time (no
# symbol dependency, so modules.dep does not name it; "after:" makes it one:
# the init mounts the upper as soon as its file system's module is in)
case "$UPPER_FS" in
ext4) upper_mods="crc32c_generic|ext4 after:crc32c_generic" ;;
f2fs) upper_mods="crc32_generic|f2fs after:crc32_generic" ;;
*) upper_mods=$UPPER_FS ;;
esac
# ("@upper after:zstd,deflate": the rest of the line goes to the file system's module)
awk -v mods="$upper_mods" '$1 == "@upper" {
	rest = $0; sub(/^[ \t]*@upper[ \t]*/, "", rest)
	gsub(/\|/, "\n", mods); print mods (rest != "" ? " " rest : ""); next } 1' \
	"$BOARD_DIR/modules" > "$BUILD/modules.board.in"
if [ -f "$BUILD/modules.flash" ]; then
	awk 'NR == FNR { add[$1] = substr($0, length($1) + 2); next }
	$1 in add { print $0 " " add[$1]; delete add[$1]; next } 1
	END { for (m in add) { print "mkimages: flash.sh gives parameters to module " m \
		", which the board does not list" > "/dev/stderr"; exit 1 } }' \
		"$BUILD/modules.flash" "$BUILD/modules.board.in" > "$BUILD/modules.board"
else
	mv "$BUILD/modules.board.in" "$BUILD/modules.board"
fi
# dm-verity layers: the verity target (dm-mod, dm-bufio and reed_solomon come as its dependencies)
if [ "$VERITY" = y ] && [ "$VERITY_MODE" = dm-verity ]; then
	echo dm_verity >> "$BUILD/modules.board"
fi
MODULES_XZ=$MODULES_XZ "$TOPDIR/tools/mkmodules.sh" "$BUILD/modules.board" "$KERNEL_DIR" \
	"$initramfs/modules.list" "$initramfs/modules"
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
	[ ! -s "$initramfs/modules.list.builtin" ] ||
		echo "file /etc/strata/modules.builtin $initramfs/modules.list.builtin 0644 0 0"
	[ ! -s "$lowers" ] || echo "file /etc/strata/lowers $lowers 0644 0 0"
	[ "$VERITY" != y ] || echo "file /etc/strata/manifest $IMAGES/manifest 0644 0 0"
	# shellcheck disable=SC2012 # the build's own file names
	for m in $(cd "$initramfs/modules" && ls | sort); do
		echo "file /lib/modules/$m $initramfs/modules/$m 0644 0 0"
	done
	if [ "$EMERGENCY_SHELL" = y ]; then
		echo "file /bin/busybox $BUSYBOX 0755 0 0"
		sort "$applets" | while read -r applet; do
			case "$applet" in bin/busybox | linuxrc) continue ;; esac
			echo "slink /$applet /bin/busybox 0777 0 0"
		done | grep -v -E '^slink /(usr/|sbin/init )' || true
	fi
} > "$list"
case "$INITRAMFS_COMP" in
xz) out="$IMAGES/initramfs.cpio.xz"; comp=(xz -9 --check=crc32 -T1) ;;
gzip) out="$IMAGES/initramfs.cpio.gz"; comp=(gzip -9 -n) ;;
none) out="$IMAGES/initramfs.cpio"; comp=(cat) ;;
*) die "unknown initramfs compression '$INITRAMFS_COMP'" ;;
esac
step CPIO "$(basename "$out")"
rm -f "$IMAGES"/initramfs.cpio "$IMAGES"/initramfs.cpio.*
"$MKCPIO" "$list" | "${comp[@]}" > "$out"

# ---- kernel and start-qemu.sh ------------------------------------------------
# a firmware build that brings its own kernel may have none here
if [ -f "$KERNEL_DIR/kernel" ]; then install -m 0644 "$KERNEL_DIR/kernel" "$IMAGES/kernel"; fi
{
	sed -e "s|@BOARD@|$(basename "$BOARD_DIR")|" -e "s|@INITRAMFS@|$(basename "$out")|" \
		"$TOPDIR/tools/start-qemu.sh.in" | sed '/@BOARD_QEMU@/,$d'
	cat "$BOARD_DIR/qemu.sh"
	sed '1,/@BOARD_QEMU@/d' "$TOPDIR/tools/start-qemu.sh.in"
} > "$IMAGES/start-qemu.sh"
chmod 0755 "$IMAGES/start-qemu.sh"

# ---- the update bundle: what a slot of the board holds, signed ---------------
# one image per name of the board's update.conf (its slot lines), in its order
boot_ext2() { # OUT: a slot's boot partition as tools/grubdisk.sh makes it (/kernel, /initramfs)
	local dir="$BUILD/boot-slot" kib=0 f
	rm -rf "$dir" "$1"
	mkdir -p "$dir"
	install -m 0644 "$IMAGES/kernel" "$dir/kernel"
	install -m 0644 "$out" "$dir/initramfs"
	find "$dir" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	# as small as holds them (the partition may be larger): the files, an
	# eighth for inodes and indirect blocks, 1 MiB, in whole MiB
	for f in "$dir"/*; do kib=$((kib + ($(stat -c %s "$f") + 1023) / 1024)); done
	kib=$(((kib + kib / 8 + 1024 + 1023) / 1024 * 1024))
	# fixed time, UUID and hash seed (mke2fs takes a null seed for none and
	# makes one up): the same files give the same image
	E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mke2fs -q -t ext2 -b 1024 -U clear \
		-E hash_seed=5374726b-0000-4000-8000-000000000000 -d "$dir" "$1" "$kib" > /dev/null
	# and the files' change time, which mke2fs -d copies and touch cannot set
	printf 'sif /%s ctime @%s\n' kernel "$SOURCE_DATE_EPOCH" initramfs "$SOURCE_DATE_EPOCH" |
		E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f - "$1" > /dev/null 2>&1
	rm -rf "$dir"
}
rm -f "$IMAGES/update.bundle" "$BUILD/boot.ext2"
if [ -n "$UPDATE_CONF" ] && [ ! -f "$IMAGES/kernel" ]; then
	echo "mkimages: warning: no kernel in $KERNEL_DIR: no update.bundle" >&2
	UPDATE_CONF=""
fi
if [ -n "$UPDATE_CONF" ]; then
	bundle=()
	mapfile -t names < <(awk '$1 == "slot" && !seen[$3]++ { print $3 }' "$UPDATE_CONF")
	for name in "${names[@]}"; do
		case $name in
		kernel) file="$IMAGES/kernel" ;;
		initramfs) file=$out ;;
		rootfs) file="$IMAGES/$ROOT_IMAGE" ;;
		boot) file="$BUILD/boot.ext2"; boot_ext2 "$file" ;;
		*) die "$UPDATE_CONF: image '$name': the build makes kernel, initramfs, rootfs and boot" ;;
		esac
		bundle+=("$name=$file")
	done
	[ ${#bundle[@]} -gt 0 ] || die "$UPDATE_CONF: no slot lines"
	step BUNDLE "update.bundle: $BOARD $VERSION, ${bundle[*]%%=*}"
	"$TOPDIR/tools/mkbundle.sh" -k "$UPDATE_KEY" -c "$BOARD" -v "$VERSION" \
		-o "$IMAGES/update.bundle" "${bundle[@]}"
	# the root's key checks it (a KEY.pub of another key would make every bundle refused)
	pub=$(update_pub "$UPDATE_KEY")
	signify="signify-openbsd"
	command -v "$signify" > /dev/null || signify=signify
	head -n 2 "$IMAGES/update.bundle" > "$BUILD/bundle.sig"
	sed -n '3,/^end$/p;/^end$/q' "$IMAGES/update.bundle" > "$BUILD/bundle.header"
	"$signify" -V -q -p "$pub" -x "$BUILD/bundle.sig" -m "$BUILD/bundle.header" ||
		die "update.bundle does not verify with '$pub': it is not the public key of '$UPDATE_KEY'"
	rm -f "$BUILD/bundle.sig" "$BUILD/bundle.header"
fi

echo "images in $IMAGES:"
# shellcheck disable=SC2012 # the build's own file names
(cd "$IMAGES" && for f in $(ls | sort); do
	printf '  %-22s %10s bytes\n' "$f" "$(stat -L -c %s "$f")"
done)
if [ -n "$UPDATE_CONF" ] && [ "$UPDATE_DEV_KEY" = y ]; then
	echo "mkimages: warning: update.bundle is signed with the development key $UPDATE_KEY," \
		"not for release: set CONFIG_STRATA_UPDATE_KEY (or UPDATE_KEY=) to your signify secret key" >&2
fi
