#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Turns a .config into a C header where every Kconfig symbol is always defined:
# bools as 0/1 (n when absent), strings as string literals ("" when absent),
# ints and hex as numbers; an int absent from the .config is left undefined.
# usage: kconfig-header.sh KCONFIG DOTCONFIG > header
set -eu
kconfig=$1 config=$2
awk -v cfgfile="$config" '
FNR == NR {
	if ($1 == "config" || $1 == "menuconfig") { sym = $2; next }
	if (sym != "" && ($1 == "bool" || $1 == "int" || $1 == "string" || $1 == "hex")) {
		type[sym] = $1; order[n++] = sym; sym = ""
	}
	next
}
/^CONFIG_[A-Za-z0-9_]+=/ {
	eq = index($0, "="); name = substr($0, 8, eq - 8); val[name] = substr($0, eq + 1)
}
END {
	print "/* Generated from " cfgfile "; do not edit. */"
	print "#ifndef STRATA_CONFIG_H"
	print "#define STRATA_CONFIG_H"
	for (i = 0; i < n; i++) {
		s = order[i]; t = type[s]
		if (t == "bool")
			v = (val[s] == "y") ? "1" : "0"
		else if (t == "string")
			v = (s in val) ? val[s] : "\"\""
		else if (s in val)
			v = val[s]
		else {
			# no value is invented: C that uses it does not compile
			print "/* CONFIG_" s " is not set (its dependencies are not met) */"
			continue
		}
		print "#define CONFIG_" s " " v
	}
	print "#endif"
}' "$kconfig" "$config"
