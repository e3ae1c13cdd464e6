#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs what building and testing strata needs, from the machine's own
# Debian package sources. Idempotent and quiet when everything is present.
# usage: deps.sh [--check] [PACKAGE[:ARCH]...]
#   --check: exit 1 if something is missing, install nothing
#   PACKAGE: what the configured board needs besides (the Makefile passes its
#   QEMU and cross compiler); a foreign :ARCH is added to dpkg's architectures
#   first, then the machine's own package sources are read again.
set -eu
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi

packages="make gcc libc6-dev musl-tools busybox-static squashfs-tools mtd-utils
kconfig-frontends-nox cpio xz-utils gzip kmod qemu-system-x86 python3 e2fsprogs f2fs-tools
fsverity libfsverity-dev cryptsetup-bin fdisk clang libclang-rt-dev clang-tidy clang-format shellcheck cppcheck valgrind util-linux
signify-openbsd libubootenv-tool grub-common $*"

missing=""
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ $check = 1 ]; then
	echo "missing packages:$missing" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# refresh the package lists once when they are missing or a day old
lists=/var/lib/apt/lists
update=0
if [ -z "$(find "$lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
	update=1
fi
native=$(dpkg --print-architecture)
for p in $missing; do
	case "$p" in *:*) ;; *) continue ;; esac
	arch=${p#*:}
	[ "$arch" = "$native" ] && continue
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "deps: adding the $arch architecture to dpkg"
		dpkg --add-architecture "$arch"
		update=1
	fi
done
[ $update = 0 ] || apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
