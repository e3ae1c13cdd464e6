#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The documentation (README.md, docs/*.md) against the tree it describes:
# every `make TARGET` named is a Makefile target; every CONFIG_STRATA_*
# symbol named is in Kconfig and every Kconfig symbol is documented; every
# strata.KEY= kernel command line key named is one the init parses and every
# key it parses is documented; every `strata COMMAND` named is in
# init/cmd/commands.c's command table (as a host build's `strata help` lists
# it) and every command there is documented, each command's --help verbatim
# in docs/commands.md and every usage block there a command's; every
# relative link resolves (its #anchor to a heading); every boot.json key
# named is one init/lib/bootrec.c writes and every key it writes is in
# docs/introspection.md's table; make help's targets and variables, and
# make deps' packages, are in docs/building.md. Names are read from code
# spans and code blocks, not from prose.
# Then it proves it can fail: on a copy of the docs with a bogus
# `make nosuchtarget`, a bogus strata.nosuchkey=, a changed usage line and a
# usage block of no command it must say FAIL.
# Prints PASS/FAIL/SKIP lines; exits 1 when one is a FAIL.
# usage: tests/docs.sh [--no-self-test] [TREE]   (TREE: default this source tree)
set -euo pipefail
self_test=1
if [ "${1:-}" = --no-self-test ]; then
	self_test=0
	shift
fi
top=$(cd "${1:-$(dirname "$0")/..}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

pass() { echo "PASS docs/$1"; }
fail() { # NAME LINES: one FAIL naming every offender
	echo "FAIL docs/$1: $(head -n 20 <<<"$2" | paste -sd ';' - | sed 's/;/; /g')"
	failed=1
}
verdict() { # NAME OFFENDERS WHAT: PASS when there are none
	if [ -z "$2" ]; then pass "$1 ($3)"; else fail "$1" "$2"; fi
}

# sets: has FILE WORD, WORD a line of FILE (read once; a grep per name is slow)
declare -A sets=() loaded=()
has() {
	local w
	if [ -z "${loaded[$1]:-}" ]; then
		while IFS= read -r w; do sets[$1/$w]=1; done < "$1"
		loaded[$1]=1
	fi
	[ -n "${sets[$1/$2]:-}" ]
}

pages=(README.md)
for p in docs/*.md; do [ -f "$p" ] && pages+=("$p"); done

# ---- the pages as records: FILE LINE KIND TEXT, tab-separated ---------------
# KIND: seg (a paragraph, list item, table row or heading, joined on one line),
# span (a code span of the seg before it), block (a line of a code block),
# head (a heading's text), link (a link target in prose).
awk '
function flush(   n, parts, i, prose, code, rest, t) {
	if (seg == "") return
	gsub(/\t/, " ", seg)
	print segfile "\t" segline "\tseg\t" seg
	n = split(seg, parts, "`")
	prose = parts[1]
	for (i = 2; i <= n; i += 2) {
		if (i == n) { prose = prose "`" parts[i]; break }   # unterminated: prose
		code = parts[i]
		gsub(/\\\|/, "|", code)                           # a table cell escapes |
		print segfile "\t" segline "\tspan\t" code
		prose = prose " " parts[i + 1]
	}
	rest = prose
	while (match(rest, /\]\([^) ]+\)/)) {
		t = substr(rest, RSTART + 2, RLENGTH - 3)
		print segfile "\t" segline "\tlink\t" t
		rest = substr(rest, RSTART + RLENGTH)
	}
	seg = ""
}
FNR == 1 { flush(); fence = 0; indented = 0; blank = 1 }
/^ *```/ { flush(); fence = !fence; blank = 0; next }
fence { print FILENAME "\t" FNR "\tblock\t" $0; next }
/^[ \t]*$/ { flush(); blank = 1; next }
(blank || indented) && /^(    |\t)/ { flush(); indented = 1; blank = 0
	print FILENAME "\t" FNR "\tblock\t" $0; next }
{ indented = 0; blank = 0 }
/^#+ / { flush(); h = $0; sub(/^#+ +/, "", h); print FILENAME "\t" FNR "\thead\t" h
	seg = h; segline = FNR; segfile = FILENAME; flush(); next }
/^\|/ { flush(); seg = $0; segline = FNR; segfile = FILENAME; flush(); next }
/^ *([-*]|[0-9]+\.) / { flush() }
{ if (seg == "") { seg = $0; segline = FNR; segfile = FILENAME } else seg = seg " " $0 }
END { flush() }
' "${pages[@]}" > "$work/records"
# code: the spans and block lines, as FILE:LINE TEXT
awk -F'\t' '$3 == "span" || $3 == "block" { print $1 ":" $2 "\t" $4 }' "$work/records" > "$work/code"

# ---- make targets -------------------------------------------------------------
# the Makefile's targets: rule heads and .PHONY (a % rule stands for configs/)
awk '/^\.PHONY:/ { p = 1 }
p { line = $0; sub(/^\.PHONY:/, "", line); sub(/\\$/, "", line); print line; if ($0 !~ /\\$/) p = 0; next }
/^[a-z%][a-zA-Z0-9_ %.-]*:([^=]|$)/ { line = $0; sub(/:.*/, "", line); print line }' Makefile |
	tr -s ' \t' '\n' | grep -v '^$' | sort -u > "$work/targets"
# "make [VAR=...] [-x] TARGET..." in code, up to a comment or another command
awk -F'\t' '{
	n = split($2, t, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		if (t[i] != "make") continue
		for (j = i + 1; j <= n; j++) {
			if (t[j] ~ /^(#|&&|\|\||;|\||\))/) break
			if (t[j] ~ /=|^-|^\.\.\.$/ || t[j] == "") continue
			w = t[j]; sub(/[,.;:)]+$/, "", w)
			if (w ~ /^[a-z][a-z0-9_.-]*$/) print $1 "\t" w
			if (t[j] ~ /[,;:)]$/) break
		}
	}
}' "$work/code" > "$work/make-named"
bad=""
while IFS=$'\t' read -r where t; do
	case "$t" in
	*_defconfig) [ -f "configs/$t" ] || bad+="$where: make $t: no configs/$t"$'\n' ;;
	*) has "$work/targets" "$t" || bad+="$where: make $t: no such Makefile target"$'\n' ;;
	esac
done < "$work/make-named"
verdict make-targets "${bad%$'\n'}" "$(wc -l < "$work/make-named") named, each a target"

# ---- Kconfig symbols ------------------------------------------------------------
sed -n 's/^\(menu\)\{0,1\}config \(STRATA_[A-Z0-9_]*\).*/CONFIG_\2/p' Kconfig | sort -u > "$work/kconfig"
grep -noE 'CONFIG_STRATA_[A-Z0-9_]*[A-Z0-9](_\*)?' "${pages[@]}" > "$work/config-named" || true
bad=""
while IFS= read -r hit; do
	sym=${hit##*:} where=${hit%:*}
	case "$sym" in
	*_\*) grep -q "^${sym%\*}" "$work/kconfig" || bad+="$where: $sym: no Kconfig symbol begins so"$'\n' ;;
	*) has "$work/kconfig" "$sym" || bad+="$where: $sym: not in Kconfig"$'\n' ;;
	esac
done < "$work/config-named"
verdict kconfig-named "${bad%$'\n'}" "$(wc -l < "$work/config-named") named, each in Kconfig"
cut -d: -f3 "$work/config-named" | sort -u > "$work/config-named.syms"
bad=""
while IFS= read -r sym; do
	has "$work/config-named.syms" "$sym" || bad+="$sym: in Kconfig, documented nowhere"$'\n'
done < "$work/kconfig"
verdict kconfig-documented "${bad%$'\n'}" "$(wc -l < "$work/kconfig") Kconfig symbols, each documented"

# ---- kernel command line keys -------------------------------------------------
grep -oE 'strcmp\(key, "[a-z][a-z0-9_-]*"\)' init/lib/opts.c | sed 's/.*"\(.*\)".*/\1/' |
	sort -u > "$work/keys"
awk -F'\t' '{ s = $2
	while (match(s, /strata\.[a-z][a-z0-9_-]*(=|\[=)/)) {
		k = substr(s, RSTART + 7, RLENGTH - 7); sub(/\[?=$/, "", k)
		print $1 "\t" k; s = substr(s, RSTART + RLENGTH) } }' "$work/code" > "$work/keys-named"
bad=""
while IFS=$'\t' read -r where k; do
	has "$work/keys" "$k" || bad+="$where: strata.$k=: the init parses no such key"$'\n'
done < "$work/keys-named"
cut -f2 "$work/keys-named" > "$work/keys-named.keys"
while IFS= read -r k; do
	has "$work/keys-named.keys" "$k" ||
		bad+="strata.$k=: parsed by init/lib/opts.c, documented nowhere"$'\n'
done < "$work/keys"
# MODULE.param=VALUE: the command line's words for the board's modules
if grep -q 'cmdline_module_params' init/lib/opts.c && ! grep -q 'MODULE\.param=' "$work/code"; then
	bad+="MODULE.param=: parsed by init/lib/opts.c, documented nowhere"$'\n'
fi
verdict kernel-keys "${bad%$'\n'}" "$(wc -l < "$work/keys-named") named, $(wc -l < "$work/keys") parsed, each both"

# ---- runtime commands -----------------------------------------------------------
# the commands as a host build lists them (strata help): init/cmd/commands.c's table
# (STRATA_HOST_BIN: one built already, as the self-test's run below is given)
strata=${STRATA_HOST_BIN:-$work/strata}
if [ -z "${STRATA_HOST_BIN:-}" ] && ! "$here/tools/host-strata.sh" "$strata" > "$work/strata.log" 2>&1; then
	fail host-strata "tools/host-strata.sh does not build: $(tail -n 5 "$work/strata.log")"
fi
{ "$strata" help 2>/dev/null || true; } | sed -n '/^commands:$/,/^$/s/^  \([^ ]*\) .*/\1/p' |
	sort -u > "$work/commands"
[ -s "$work/commands" ] || fail commands "no command list from '$strata help'"
# in a span anywhere ("`/sbin/strata button`"); in a code block where a command
# starts (a line, after "$ ", "&&", ";", "|"), not in its comments
awk -F'\t' '$3 == "span" { print $1 ":" $2 "\t " $4 }
$3 == "block" { l = $4; sub(/(^| )#.*/, "", l); gsub(/(&&|;|\||\$ )/, "\n", l)
	n = split(l, part, "\n")
	for (i = 1; i <= n; i++) { c = part[i]; sub(/^[ \t]+/, "", c)
		if (c ~ /^(\/sbin\/)?strata /) print $1 ":" $2 "\t " c } }' "$work/records" |
	awk -F'\t' '{ s = $2
	while (match(s, /[ \/(]strata +[a-z][a-z0-9_-]*/)) {
		c = substr(s, RSTART + 1, RLENGTH - 1); sub(/^strata +/, "", c)
		print $1 "\t" c; s = substr(s, RSTART + RLENGTH) } }' > "$work/commands-named"
cut -f2 "$work/commands-named" > "$work/commands-named.names"
cut -f2 "$work/code" > "$work/code.text"
bad=""
while IFS=$'\t' read -r where c; do
	has "$work/commands" "$c" || bad+="$where: strata $c: not in init/cmd/commands.c's command table"$'\n'
done < "$work/commands-named"
# an OpenWrt name is documented as itself: "`firstboot -y`"
while IFS= read -r c; do
	has "$work/commands-named.names" "$c" ||
		grep -qE "^[[:space:]]*(/sbin/)?${c}([[:space:]]|$)" "$work/code.text" ||
		bad+="$c: in init/cmd/commands.c's command table, documented nowhere"$'\n'
done < "$work/commands"
verdict commands "${bad%$'\n'}" "$(wc -l < "$work/commands-named") named, $(wc -l < "$work/commands") in the table, each both"

# ---- each command's usage, verbatim in docs/commands.md ------------------------------
# a "## `strata NAME`" section's code block is what `strata NAME --help` prints
mkdir -p "$work/usage"
bad=""
if [ ! -f docs/commands.md ]; then
	bad="no docs/commands.md (make docs-commands writes it)"$'\n'
else
	awk -v dir="$work/usage" '
	/^## / { name = ""; if (match($0, /^## `strata [a-z0-9_-]+`$/)) { name = substr($0, 12, RLENGTH - 12); n[name]++ } next }
	/^```/ { fence = !fence; out = ""    # the first block of a section
		if (fence && name != "" && !got[name]++) out = dir "/" name ".md"; next }
	fence && out != "" { print > out; next }
	END { for (k in n) if (n[k] > 1) print k > (dir "/.twice") }' docs/commands.md
	while IFS= read -r c; do bad+="docs/commands.md: strata $c: two sections"$'\n'; done < <(cat "$work/usage/.twice" 2>/dev/null)
	while IFS= read -r c; do
		if [ ! -f "$work/usage/$c.md" ]; then
			bad+="docs/commands.md: strata $c: a command without a usage block (make docs-commands)"$'\n'
		elif ! "$strata" "$c" --help > "$work/usage/$c.txt" 2>&1 ||
			! diff -q "$work/usage/$c.txt" "$work/usage/$c.md" >/dev/null; then
			bad+="docs/commands.md: strata $c: the block is not what strata $c --help prints ($({ diff "$work/usage/$c.md" "$work/usage/$c.txt" || true; } | grep -m 2 '^[<>]' | paste -sd ' ' -), make docs-commands writes it)"$'\n'
		fi
	done < "$work/commands"
	for f in "$work"/usage/*.md; do
		[ -e "$f" ] || continue
		c=$(basename "$f" .md)
		has "$work/commands" "$c" || bad+="docs/commands.md: strata $c: a usage block for no command"$'\n'
	done
fi
verdict commands-usage "${bad%$'\n'}" "$(wc -l < "$work/commands") commands, each --help as in docs/commands.md"

# ---- links ------------------------------------------------------------------------
# a heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces -
declare -A anchors=()
while IFS= read -r a; do anchors[$a]=1; done < <(awk -F'\t' '$3 == "head" {
	h = tolower($4); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); print $1 "#" h }' "$work/records")
awk -F'\t' '$3 == "link" && $4 !~ /^(https?|mailto):/ { t = $4; path = t; anchor = ""
	if (index(t, "#")) { path = substr(t, 1, index(t, "#") - 1); anchor = substr(t, index(t, "#") + 1) }
	dir = $1; if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
	print $1 ":" $2 "\037" t "\037" anchor "\037" (path == "" ? $1 : dir "/" path) }' \
	"$work/records" > "$work/links"
# (fields apart by \037: a tab is white space to read, which drops an empty anchor)
cut -d $'\037' -f4 "$work/links" | xargs -r -d '\n' realpath -m --relative-to=. > "$work/links.dest"
bad="" n=0
while IFS=$'\037' read -r where target anchor _ && IFS= read -r dest <&3; do
	n=$((n + 1))
	if [ ! -e "$dest" ]; then
		bad+="$where: $target: no $dest"$'\n'
	elif [ -n "$anchor" ] && [ -z "${anchors[$dest#$anchor]:-}" ]; then
		bad+="$where: $target: no heading '#$anchor' in $dest"$'\n'
	fi
done < "$work/links" 3< "$work/links.dest"
verdict links "${bad%$'\n'}" "$n relative links, each resolves"

# ---- boot.json keys ---------------------------------------------------------------
grep -oE '\\"[a-z_]+\\":' init/lib/bootrec.c | sed 's/\\"\(.*\)\\":/\1/' | sort -u > "$work/bootrec"
# the table of docs/introspection.md's "boot.json" section: its first column's spans
awk -F'\t' '$1 == "docs/introspection.md" && $3 == "head" { in_sec = ($4 == "boot.json") }
in_sec && $1 == "docs/introspection.md" && $3 == "seg" && $4 ~ /^\|/ { split($4, cell, "|"); n = split(cell[2], p, "`")
	for (i = 2; i < n; i += 2) print p[i] }' "$work/records" | tr '.' '\n' | grep -v '^$' |
	sort -u > "$work/bootjson-table"
bad=""
if [ ! -s "$work/bootjson-table" ]; then
	bad+="docs/introspection.md: no table of keys under '## boot.json'"$'\n'
fi
while IFS= read -r k; do
	has "$work/bootrec" "$k" || bad+="docs/introspection.md: boot.json key '$k': init/lib/bootrec.c writes no such key"$'\n'
done < "$work/bootjson-table"
while IFS= read -r k; do
	has "$work/bootjson-table" "$k" ||
		bad+="boot.json key '$k': written by init/lib/bootrec.c, not in docs/introspection.md's table"$'\n'
done < "$work/bootrec"
# elsewhere: the spans right beside `boot.json` ("`a`, `b` and `c` in
# `boot.json`", "`boot.json` `x`", "`boot.json`'s `x`")
awk -F'\t' '$3 == "seg" { s = $4
	while (match(s, /(`[a-z][a-z0-9_]*`(, | and | or |, and ))*`[a-z][a-z0-9_]*` in `(\/run\/strata\/)?boot\.json`/)) {
		list = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		sub(/ in `[^`]*`$/, "", list); n = split(list, p, "`")
		for (i = 2; i < n; i += 2) print $1 ":" $2 "\t" p[i] }
	s = $4
	while (match(s, /`(\/run\/strata\/)?boot\.json`(.s)? `[a-z][a-z0-9_]*`/)) {
		k = substr(s, RSTART, RLENGTH - 1); sub(/.*`/, "", k); print $1 ":" $2 "\t" k
		s = substr(s, RSTART + RLENGTH) } }' "$work/records" | sort -u > "$work/bootjson-named"
while IFS=$'\t' read -r where k; do
	has "$work/bootrec" "$k" || bad+="$where: boot.json key '$k': init/lib/bootrec.c writes no such key"$'\n'
done < "$work/bootjson-named"
verdict boot-json "${bad%$'\n'}" "$(wc -l < "$work/bootrec") keys written, each in the table; $(wc -l < "$work/bootjson-named") named elsewhere, each written"

# ---- make help and make deps against docs/building.md -----------------------------
bad=""
if [ ! -f docs/building.md ]; then
	bad="no docs/building.md"
else
	awk -F'\t' '$1 ~ /^docs\/building\.md:/ { print $2 }' "$work/code" > "$work/building-code"
	help=$(sed -n '2,/^$/s/^# \{0,1\}//p' Makefile)
	# "make a | b | c   what": the targets before the gap
	while IFS= read -r t; do
		grep -qE "(^|[^a-z_-])make ${t}([^a-z_-]|$)" "$work/building-code" ||
			bad+="make $t: in make help, not in docs/building.md"$'\n'
	done < <(sed -n 's/^ *make \(.*\)$/\1/p' <<<"$help" | sed 's/  .*//; s/ *| */\n/g; s/[][]//g' |
		grep -v '^$' | sed 's/[.*]/\\&/g')
	while IFS= read -r v; do
		grep -qF -- "$v" "$work/building-code" || bad+="$v: in make help, not in docs/building.md"$'\n'
	done < <(grep -oE '(^|[^A-Z0-9_])[A-Z][A-Z0-9_]*=' <<<"$help" | sed 's/^[^A-Z]//' | sort -u)
	# the packages make deps installs: the paragraph that says so lists each
	# in an environment of its own: a calling make's variables (MAKEFLAGS,
	# CROSS_COMPILE=, BOARD=) would change the lists
	# shellcheck disable=SC2016 # make expands it
	env -i PATH="$PATH" HOME="${HOME:-/}" make -s -C "$top" O="$work/o" \
		--eval 'docs-print-deps: ; @echo $(PKGS_deps)' docs-print-deps \
		2>/dev/null | tr ' ' '\n' | grep -v '^$' | sort -u > "$work/pkgs" || true
	awk -F'\t' '$1 == "docs/building.md" && $3 == "seg" { listed = ($4 ~ /^make deps installs these packages/) }
		listed && $3 == "span" { print $4 }' "$work/records" | sort -u > "$work/pkgs-listed"
	if [ ! -s "$work/pkgs" ]; then
		bad+="make deps: cannot read the Makefile's PKGS_deps"$'\n'
	else
		while IFS= read -r p; do
			bad+="$p: installed by make deps, not listed in docs/building.md"$'\n'
		done < <(comm -23 "$work/pkgs" "$work/pkgs-listed")
		while IFS= read -r p; do
			bad+="$p: listed in docs/building.md, not installed by make deps"$'\n'
		done < <(comm -13 "$work/pkgs" "$work/pkgs-listed")
	fi
fi
verdict make-help "${bad%$'\n'}" "every target and variable of make help and every package of make deps in docs/building.md"

# ---- the check can fail: bogus names in a copy of the docs ------------------------
if [ $self_test = 1 ]; then
	copy=$work/copy
	mkdir -p "$copy"
	for f in "$top"/* "$top"/.[!.]*; do
		[ -e "$f" ] || continue
		case "$(basename "$f")" in README.md | docs | output | .git) continue ;; esac
		ln -s "$f" "$copy/"
	done
	cp -R "$top/README.md" "$top/docs" "$copy/"
	# shellcheck disable=SC2016 # markdown code spans, not commands
	printf '\nBogus: `make nosuchtarget`.\n' >> "$copy/docs/building.md"
	# shellcheck disable=SC2016
	printf '\nBogus: `strata.nosuchkey=1`.\n' >> "$copy/docs/boot.md"
	# a changed usage line, and a block for no command
	sed -i 's/^usage: strata status \[--json\]$/usage: strata status [--json] [--bogus]/' "$copy/docs/commands.md"
	# shellcheck disable=SC2016
	sed -i '/^## `strata mount_root`$/d' "$copy/docs/commands.md"
	# shellcheck disable=SC2016
	printf '\n## `strata nosuchcommand`\n\n```\nusage: strata nosuchcommand\n```\n' >> "$copy/docs/commands.md"
	got=$(STRATA_HOST_BIN=$strata "$here/tests/docs.sh" --no-self-test "$copy" 2>&1 || true)
	if grep -q '^FAIL docs/make-targets: .*make nosuchtarget: no such Makefile target' <<<"$got"; then
		pass "self-test/bogus-make-target-fails"
	else
		fail "self-test/bogus-make-target-fails" "a bogus make nosuchtarget was not a FAIL: $(grep 'docs/make-targets' <<<"$got")"
	fi
	if grep -q '^FAIL docs/kernel-keys: .*strata\.nosuchkey=: the init parses no such key' <<<"$got"; then
		pass "self-test/bogus-kernel-key-fails"
	else
		fail "self-test/bogus-kernel-key-fails" "a bogus strata.nosuchkey= was not a FAIL: $(grep 'docs/kernel-keys' <<<"$got")"
	fi
	if grep -q '^FAIL docs/commands-usage: .*strata status: the block is not what strata status --help prints' <<<"$got"; then
		pass "self-test/changed-usage-line-fails"
	else
		fail "self-test/changed-usage-line-fails" "a changed usage line of status was not a FAIL: $(grep 'docs/commands-usage' <<<"$got")"
	fi
	if grep -q '^FAIL docs/commands-usage: .*strata mount_root: a command without a usage block' <<<"$got"; then
		pass "self-test/command-without-usage-block-fails"
	else
		fail "self-test/command-without-usage-block-fails" "a command without a usage block was not a FAIL: $(grep 'docs/commands-usage' <<<"$got")"
	fi
	if grep -q '^FAIL docs/commands-usage: .*strata nosuchcommand: a usage block for no command' <<<"$got"; then
		pass "self-test/usage-block-of-no-command-fails"
	else
		fail "self-test/usage-block-of-no-command-fails" "a usage block of no command was not a FAIL: $(grep 'docs/commands-usage' <<<"$got")"
	fi
fi
exit $failed
