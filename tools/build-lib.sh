# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the image build, sourced by tools/mkrootfs.sh and
# tools/mkimages.sh (TOPDIR, BUSYBOX from their environment).

step() { printf '  %-7s %s\n' "$1" "$2"; }
die() {
	local me=${0##*/}
	echo "${me%.sh}: $*" >&2
	exit 1
}

# Relative paths are relative to the source tree, where make runs.
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$TOPDIR/$1" ;; esac; }

# Copies a directory or unpacks a tarball into DEST, keeping ownership
# (which needs root for trees owned by others, as every root filesystem is).
unpack_tree() { # WHAT SRC DEST
	local src
	src=$(abspath "$2")
	if [ -d "$src" ]; then
		cp -a "$src/." "$3/"
	elif [ -f "$src" ]; then
		tar -xf "$src" -C "$3" --numeric-owner ||
			die "$1 '$2': cannot unpack (a tarball: .tar, .tar.gz, .tar.xz, .tar.zst)"
	else
		die "$1 '$2': no such directory or tarball"
	fi
}

# The applets of $BUSYBOX with their paths (--list-full). A busybox of another
# architecture does not run here (unless binfmt_misc hands it to qemu-user):
# the host's own busybox then lists them, once it is checked that the
# target's binary carries the very same applet name table.
busybox_applets() { # OUT
	if "$BUSYBOX" --list-full > "$1" 2>/dev/null; then return; fi
	local host=${HOST_BUSYBOX:-/bin/busybox}
	"$host" --list > "$1.names"
	python3 -c 'import sys
names = open(sys.argv[2]).read().split()
sys.exit(0 if ("\0".join(names) + "\0").encode() in open(sys.argv[1], "rb").read() else 1)' \
		"$BUSYBOX" "$1.names" ||
		die "$BUSYBOX does not run here and its applets differ from $host's; use the same busybox version, or install qemu-user-binfmt"
	"$host" --list-full > "$1"
}

# The public key of an update signing key: KEY.pub beside KEY.sec (or KEY).
update_pub() { # SECRET_KEY
	local pub=${1%.sec}.pub
	[ -f "$1" ] || die "no update signing key '$1' (CONFIG_STRATA_UPDATE_KEY or UPDATE_KEY=:" \
		"a signify secret key)"
	[ -f "$pub" ] || die "no public key '$pub' beside the update signing key '$1'" \
		"(signify-openbsd -G writes both; tools/mkbundle.sh --new-key DIR makes a pair)"
	echo "$pub"
}
