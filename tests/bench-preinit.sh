#!/bin/sh
# The same job as strata, done by a plain busybox-shell preinit: the
# baseline `make bench` compares strata's assembly time against. Modules
# load in dependency order (the list's order), as the initramfs stores them:
# uncompressed inside the compressed initramfs, as OpenWrt keeps them, for
# the reference; .ko.xz for the older, weaker one. Nothing is verified.
echo "preinit: start" > /dev/kmsg
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
while read -r mod params; do
	case "$mod" in '' | \#*) continue ;; esac
	# as the initramfs stores it: plain (the reference) or .ko.xz
	ko=/lib/modules/$mod.ko
	[ -e "$ko" ] || ko=$ko.xz
	if [ ! -e "$ko" ]; then
		# built into the board kernel (which applied the command line's
		# parameters itself): the list's parameters through sysfs
		for p in $params; do
			case "$p" in after:*) continue ;; esac
			echo "${p#*=}" > "/sys/module/$mod/parameters/${p%%=*}"
		done
		continue
	fi
	# and what the kernel command line gives it ("phram.phram=..."), as modprobe does
	# shellcheck disable=SC2013 # the command line is words
	for arg in $(cat /proc/cmdline); do
		case "$arg" in "$mod".*) params="$params ${arg#"$mod".}" ;; esac
	done
	# shellcheck disable=SC2086 # the parameters are words
	insmod "$ko" $params
done < /etc/strata/modules
root=$(sed -n 's/^mtd\([0-9]*\):.*"rootfs"$/\1/p' /proc/mtd)
data=$(sed -n 's/^mtd\([0-9]*\):.*"rootfs_data"$/\1/p' /proc/mtd)
mkdir -p /run/strata/lower/0 /run/strata/data
mount -t squashfs -o ro "/dev/mtdblock$root" /run/strata/lower/0
mount -t jffs2 "mtd$data" /run/strata/data
mkdir -p /run/strata/data/system/upper /run/strata/data/system/work
mount -t overlay overlay -o lowerdir=/run/strata/lower/0,upperdir=/run/strata/data/system/upper,workdir=/run/strata/data/system/work /newroot
for d in dev proc sys run; do
	mount --move "/$d" "/newroot/$d"
done
echo "preinit: exec" > /newroot/dev/kmsg
exec switch_root /newroot /sbin/init
