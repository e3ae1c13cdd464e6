#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The init's signify/usign verifier (through tools/sigverify.c) against
# OpenBSD's signify (Debian's signify-openbsd): what signify signs with a key
# it generates verifies, for files of 0, 1, 1000 and 100000 random bytes and
# for many fresh key pairs; a tampered file, another key's signature (also
# one claiming our key's number), a truncated signature file and garbage
# base64 are refused, each with its own message.
# Prints PASS/FAIL lines; exits 77 with the reason as its last line when
# signify-openbsd is not installed (tests/run.sh counts that as a SKIP).
# usage: tests/signify.sh SIGVERIFY WORKDIR
set -uo pipefail
sigverify=$1 work=$2
if ! command -v signify-openbsd >/dev/null; then
	echo "signify-openbsd is not installed (make deps)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

accepts() { # NAME SIGVERIFY-ARGS...
	local name=$1 out
	shift
	if out=$("$sigverify" "$@" 2>&1); then
		echo "PASS signify/$name"
	else
		echo "FAIL signify/$name: sigverify $*: $out"
	fi
}

refuses() { # NAME WANTED-TEXT SIGVERIFY-ARGS...: exit 1 and a message saying why
	local name=$1 want=$2 out rc
	shift 2
	out=$("$sigverify" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$want" <<<"$out"; then
		echo "PASS signify/$name"
	else
		echo "FAIL signify/$name: sigverify $*: exit $rc, wanted 1 and '$want'; got: $out"
	fi
}

if ! signify-openbsd -G -n -p k.pub -s k.sec || ! signify-openbsd -G -n -p other.pub -s other.sec; then
	echo "FAIL signify/keys: signify-openbsd -G failed"
	exit 1
fi
for size in 0 1 1000 100000; do
	head -c "$size" /dev/urandom > "f$size"
	signify-openbsd -S -s k.sec -m "f$size" # writes f$size.sig
	accepts "signed-$size-bytes" k.pub "f$size.sig" "f$size"
done

# many key pairs: keys and R values of every kind the decoder meets
bad=""
for i in $(seq 1 16); do
	signify-openbsd -G -n -p "k$i.pub" -s "k$i.sec" && head -c "$((i * 7))" /dev/urandom > "m$i" &&
		signify-openbsd -S -s "k$i.sec" -m "m$i" && "$sigverify" "k$i.pub" "m$i.sig" "m$i" ||
		bad="$bad $i"
done
if [ -z "$bad" ]; then
	echo "PASS signify/16-fresh-key-pairs"
else
	echo "FAIL signify/16-fresh-key-pairs: key pairs$bad did not verify"
fi

# a byte of the file changed, one byte added, the last one dropped
cp f1000 tampered
printf 'x' | dd of=tampered bs=1 seek=500 conv=notrunc status=none
cmp -s f1000 tampered && printf 'y' | dd of=tampered bs=1 seek=500 conv=notrunc status=none
refuses tampered-file "is not a good signature of 'tampered'" k.pub f1000.sig tampered
printf 'z' > grown
refuses appended-byte "is not a good signature" k.pub f0.sig grown
head -c 999 f1000 > shrunk
refuses dropped-byte "is not a good signature" k.pub f1000.sig shrunk
refuses other-file "is not a good signature" k.pub f1.sig f1000

# another key pair's signature: its key number says so; given our key's
# number instead, it still does not verify
signify-openbsd -S -s other.sec -m f1000 -x other.sig
refuses other-key "was made with key" k.pub other.sig f1000
refuses other-key-public-key "was made with key" other.pub f1000.sig f1000
blob() { sed -n 2p "$1" | base64 -d; }
{
	sed -n 1p other.sig
	{ blob other.sig | head -c 2; blob k.pub | tail -c +3 | head -c 8; blob other.sig | tail -c +11; } |
		base64 -w 0
	echo
} > relabelled.sig
refuses other-key-with-our-number "is not a good signature" k.pub relabelled.sig f1000

# the signature file cut short: in the comment, in the base64, before its newline
len=$(stat -c %s f1000.sig)
for cut in 0 10 40 60 100 $((len - 3)) $((len - 1)); do
	head -c "$cut" f1000.sig > "cut$cut.sig"
	refuses "signature-cut-at-$cut-bytes" "is not a signify signature" k.pub "cut$cut.sig" f1000
done

# garbage base64, in a signature and in a key
{ sed -n 1p f1000.sig; echo 'RWQ!!!!not*base64~~~~'; } > garbage.sig
refuses garbage-base64-signature "is not a signify signature" k.pub garbage.sig f1000
{ sed -n 1p k.pub; sed -n 2p k.pub | tr -d '\n' | sed 's/.$/@/'; echo; } > garbage.pub
refuses garbage-base64-key "is not a signify public key" garbage.pub f1000.sig f1000
refuses key-as-signature "is not a signify signature" k.pub k.pub f1000
