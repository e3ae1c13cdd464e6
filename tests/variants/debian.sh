#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "debian": a root filesystem strata did not make — Debian's
# systemd (PID 1 after the hand-off) and its libraries, unpacked from the
# packages of the machine's own apt sources, plus a busybox for the test
# console. Writes DIR/rootfs.tar and prints the make variables.
# usage: debian.sh DIR BOARD
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
board_arch=$(sed -n 's/^BOARD_ARCH *:\{0,1\}= *//p' "$top/board/$2/board.mk")
case "$board_arch" in
x86_64) arch=amd64 ;;
aarch64) arch=arm64 ;;
*) echo "debian.sh: no Debian architecture for '$board_arch' (board $2)" >&2; exit 1 ;;
esac
cache=${DL_DIR:-$top/dl}/debian-rootfs-$arch
# what systemd needs to run, without recommends; tools of package
# installation (dpkg, debconf and the installer's dialog libraries) stay out
skip='^(cdebconf|debconf|dpkg|install-info|tar|libdebian-installer4|libnewt0\.52|libslang2|libtextwrap1|readline-common|libreadline8)$'
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances "systemd:$arch" "systemd-sysv:$arch" "busybox-static:$arch" |
	sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)\(:[a-z0-9]*\)\{0,1\}$/\1/p' | sort -u | grep -v -E "$skip")
mkdir -p "$cache"
shopt -s nullglob
deb_of() { local d=("$cache/${1}_"*"_$arch.deb" "$cache/${1}_"*"_all.deb"); echo "${d[@]: -1}"; }
# architecture-independent packages are named without an architecture
# shellcheck disable=SC2086 # a list of package names
all=$(apt-cache show --no-all-versions $pkgs 2>/dev/null |
	awk '/^Package:/ { p = $2 } /^Architecture: all/ { print p }' | sort -u)
missing=""
for p in $pkgs; do
	[ -z "$(deb_of "$p")" ] || continue
	if grep -qx "$p" <<<"$all"; then missing="$missing $p"; else missing="$missing $p:$arch"; fi
done
if [ -n "$missing" ]; then
	echo "debian.sh: downloading$missing" >&2
	# shellcheck disable=SC2086
	(cd "$cache" && apt-get download -q $missing 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2)
fi
rm -rf "$dir"
tree=$dir/root
mkdir -p "$tree"
for p in $pkgs; do
	dpkg-deb -x "$(deb_of "$p")" "$tree"
done
rm -rf "$tree/usr/share/doc" "$tree/usr/share/man" "$tree/usr/share/locale" "$tree/usr/share/info"
# what package installation would have done: accounts, the default target
mkdir -p "$tree"/{etc/systemd/system/multi-user.target.wants,root,run,tmp,proc,sys,dev,var/log,opt/busybox}
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$tree/etc/passwd"
printf 'root:x:0:\ntty:x:5:\ndisk:x:6:\nkmem:x:9:\nsystemd-journal:x:101:\ninput:x:102:\nkvm:x:103:\nrender:x:104:\nsgx:x:105:\n' > "$tree/etc/group"
printf 'root::0:0:99999:7:::\n' > "$tree/etc/shadow"
echo debian > "$tree/etc/hostname"
# what base-files would have said (systemd-sysext matches extensions against it)
if [ ! -e "$tree/usr/lib/os-release" ]; then
	printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n' \
		> "$tree/usr/lib/os-release"
	ln -sf ../usr/lib/os-release "$tree/etc/os-release"
fi
: > "$tree/etc/machine-id"
ln -sf /lib/systemd/system/multi-user.target "$tree/etc/systemd/system/default.target"
# the test console: a root shell, as the busybox root has one
# (the host's busybox of the same version lists the applets of any architecture)
for a in $(busybox --list); do ln -sf ../../bin/busybox "$tree/opt/busybox/$a"; done
ln -sf busybox "$tree/bin/sh"
cat > "$tree/etc/profile" <<'EOP'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/opt/busybox
export PS1='\u@\h:\w\$ '
# busybox's shell runs its own applets first; these are systemd's
poweroff() { systemctl poweroff; }
reboot() { systemctl reboot; }
EOP
cat > "$tree/etc/systemd/system/console-shell.service" <<'EOU'
[Unit]
Description=Root shell on the console
After=systemd-journald.service
[Service]
Environment=HOME=/root
ExecStart=/bin/busybox sh -l
# an interactive shell ignores SIGTERM (systemd would wait 90 s at shutdown);
# it ends on a hangup, as a getty's does
KillSignal=SIGHUP
StandardInput=tty-force
StandardOutput=tty
TTYPath=/dev/console
Restart=always
[Install]
WantedBy=multi-user.target
EOU
ln -sf ../console-shell.service "$tree/etc/systemd/system/multi-user.target.wants/console-shell.service"
# no udev here (systemd alone): a getty's tty device unit would never appear,
# and multi-user.target would wait 90 s for it; the console has the shell
for u in getty@.service serial-getty@.service getty-static.service; do
	ln -sf /dev/null "$tree/etc/systemd/system/$u"
done
tar -C "$tree" --sort=name --numeric-owner --mtime=@0 -cf "$dir/rootfs.tar" .
rm -rf "$tree"
echo "ROOTFS=$dir/rootfs.tar"
# systemd wants what a distribution kernel has (cgroups, autofs, namespaces)
echo "KERNEL=modular"
