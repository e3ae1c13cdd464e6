#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Resolves a board's module list against the kernel's modules.dep: writes the
# init's load list (dependencies first, each module once) and copies the
# module files.
# The dependency file ("name: dep ...") lets the init load independent
# modules in parallel. A board line may order its module after others it
# needs at run time, not by symbols: "block2mtd after:virtio_blk block2mtd=..."
# (the named modules must be listed earlier).
# MODULES_XZ=n stores them decompressed (.ko): the initramfs is compressed as
# a whole, and the kernel then decompresses nothing at load time.
# A board kernel (KERNEL_DIR/modules.builtin, no lib/modules) has every
# listed module built in: each must be there, nothing is copied, the names
# go to OUT_LIST.builtin and the init applies their parameters at run time.
# usage: mkmodules.sh BOARD_MODULES KERNEL_DIR OUT_LIST OUT_MODDIR
set -eu
list=$1 kdir=$2 out=$3 moddir=$4
mkdir -p "$moddir"
: > "$out.builtin"
if [ -f "$kdir/modules.builtin" ] && [ ! -d "$kdir/lib/modules" ]; then
	: > "$out"
	: > "$out.dep"
	awk -v builtin="$kdir/modules.builtin" -v out="$out" '
function norm(s) { gsub(/-/, "_", s); return s }
BEGIN {
	while ((getline line < builtin) > 0) { sub(/.*\//, "", line); sub(/\.ko$/, "", line); have[norm(line)] = 1 }
}
/^[ \t]*(#|$)/ { next }
{
	name = norm($1); params = ""; after = ""
	if (!have[name]) { print "mkmodules: module \"" name "\" is not built into the kernel (" builtin ")" > "/dev/stderr"; exit 1 }
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^after:/) {
			n = split(substr($i, 7), a, ",")
			for (j = 1; j <= n; j++) {
				if (!listed[norm(a[j])]) { print "mkmodules: " name ": after:" a[j] " is not listed before it" > "/dev/stderr"; exit 1 }
				after = after " " norm(a[j])
			}
		} else params = params (params != "" ? " " : "") $i
	}
	if (listed[name]++) next
	print name (params != "" ? " " params : "") >> out
	print name ":" after >> (out ".dep")
	print name >> (out ".builtin")
}' "$list"
	exit
fi
# the downloaded kernel names its release; a firmware build's has one
kver=$(cat "$kdir/.complete" 2>/dev/null || ls "$kdir/lib/modules")
[ "$(echo "$kver" | wc -w)" = 1 ] || { echo "mkmodules: $kdir/lib/modules must hold one kernel release" >&2; exit 1; }
dep="$kdir/lib/modules/$kver/modules.dep"
: > "$out"
: > "$out.dep"
awk -v depfile="$dep" -v out="$out" -v moddir="$moddir" -v kmods="$kdir/lib/modules/$kver" \
	-v plain="$([ "${MODULES_XZ:-y}" = n ] && echo 1)" '
function norm(s) { gsub(/-/, "_", s); return s }
function modname(path,   n) { n = path; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n); return norm(n) }
BEGIN {
	while ((getline line < depfile) > 0) {
		split(line, parts, ":")
		m = modname(parts[1]); file[m] = parts[1]; deps[m] = parts[2]
	}
}
function emit(m, params, after,   d, n, i) {
	if (done[m]++) return
	if (!(m in file)) { print "mkmodules: module \"" m "\" is not in " depfile > "/dev/stderr"; exit 1 }
	n = split(deps[m], d, " ")
	for (i = n; i >= 1; i--) emit(modname(d[i]), "", "")   # modules.dep lists deepest last
	print m (params != "" ? " " params : "") >> out
	line = m ":"
	for (i = 1; i <= n; i++) line = line " " modname(d[i])
	print line after >> (out ".dep")
	f = file[m]; ext = f; sub(/.*\.ko/, ".ko", ext)
	if (plain && ext == ".ko.xz") {
		if (system("xz -dc \"" kmods "/" f "\" > \"" moddir "/" m ".ko\"") != 0) exit 1
	} else if (system("cp \"" kmods "/" f "\" \"" moddir "/" m ext "\"") != 0) exit 1
}
/^[ \t]*(#|$)/ { next }
{
	name = norm($1); params = ""; after = ""
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^after:/) {
			n = split(substr($i, 7), a, ",")
			for (j = 1; j <= n; j++) {
				if (!done[norm(a[j])]) { print "mkmodules: " name ": after:" a[j] " is not listed before it" > "/dev/stderr"; exit 1 }
				after = after " " norm(a[j])
			}
		} else {
			params = params (params != "" ? " " : "") $i
		}
	}
	emit(name, params, after)
}
' "$list"
