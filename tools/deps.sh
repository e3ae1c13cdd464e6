#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian packages a target needs: checked (--check, what every target but
# deps, run and check does) or installed from the machine's own package
# sources (make deps). Idempotent and quiet when everything is present.
# usage: deps.sh [--check] PACKAGE[:ARCH]...
#   --check: print "missing packages: ..." and exit 1 if one is not
#   installed; install nothing
#   a foreign :ARCH is added to dpkg's architectures first, then the
#   machine's own package sources are read again
set -eu
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
[ $# -gt 0 ] || exit 0

if ! command -v dpkg-query >/dev/null; then
	echo "not a Debian system (no dpkg-query) to check for: $*; provide them and set SKIP_DEPS=1" >&2
	exit 1
fi
# one query for all (a query per package costs a make run seconds);
# dpkg names a Multi-Arch package of the native architecture PACKAGE:ARCH
native=$(dpkg --print-architecture)
installed=$(dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null |
	awk -v native=":$native" '$2 == "ii" { sub(native "$", "", $1); print $1 }' || true)
missing=""
for p in "$@"; do
	printf '%s\n' "$installed" | grep -qxF "${p%:"$native"}" || missing="$missing $p"
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
