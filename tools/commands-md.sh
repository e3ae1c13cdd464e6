#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints docs/commands.md: `strata help` and each command's --help, verbatim,
# as the binary STRATA prints them (make docs-commands; tests/docs.sh checks it).
# usage: tools/commands-md.sh STRATA
set -eu
if [ $# -ne 1 ]; then
	echo "usage: $0 STRATA" >&2
	exit 2
fi
bin=$1
# shellcheck disable=SC2016 # markdown code spans
printf '%s\n' '# Commands' '' \
	'What `strata help` and each `strata COMMAND --help` print, command by' \
	'command: the usage texts of the table in `init/cmd/commands.c`, this page' \
	'written from them by `make docs-commands` ([building.md](building.md#targets));' \
	'`tests/docs.sh` fails when the two differ. A usage error prints what was' \
	'wrong, what was expected and the usage on stderr, exit status 2; `--help`' \
	'prints the usage on stdout, exit status 0. The OpenWrt names also run as' \
	'themselves (`/sbin/firstboot` a link to `strata`).'
for c in $("$bin" help | sed -n '/^commands:$/,/^$/s/^  \([^ ]*\) .*/\1/p'); do
	# shellcheck disable=SC2016
	printf '\n## `strata %s`\n\n```\n' "$c"
	"$bin" "$c" --help
	printf '```\n'
done
