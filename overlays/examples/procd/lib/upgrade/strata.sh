# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-only
# OpenWrt's sysupgrade on A/B slots (docs/updates.md, "OpenWrt's sysupgrade").
# sysupgrade sources every /lib/upgrade/*.sh; this one, after platform.sh,
# makes a strata bundle its image: "sysupgrade [-n|-c] BUNDLE" (and LuCI's
# "Flash image", which runs the same) installs it into the slot not running
# with strata update install, while this slot runs on, and reboots into it.
# OpenWrt's own flash stage (stage2: kill everything, a RAM root, write over
# the running firmware) is never reached. What the new slot's first boot
# carries follows sysupgrade's options: by default what sysupgrade keeps
# (sysupgrade.conf, keep.d, changed conffiles) and strata's keep list, with
# -c every file of /etc, with -n nothing. strata verifies the whole bundle
# before the slot can boot; a refused one leaves this slot as it is, and
# sysupgrade exits 1 with strata's reason.
# shellcheck disable=SC2034,SC2154 # sysupgrade's variables, both ways

# the image check: a signed strata bundle (its third line; strata checks the rest)
platform_check_image() {
	[ "$(head -c 4096 "$1" 2>/dev/null | sed -n '1s/^\(untrusted comment:\).*/\1/p;3p' |
		tr '\n' '|')" = "untrusted comment:|strata-bundle 1|" ] && return 0
	echo "$1 is not a strata bundle (strata update install: docs/updates.md)"
	return 1
}

# run after the configuration was saved, instead of the flash stage
strata_sysupgrade() {
	strata_keep=
	[ "$SAVE_CONFIG" = 1 ] || strata_keep=-n
	[ "$SAVE_OVERLAY" = 1 ] && [ "$SAVE_CONFIG" = 1 ] && strata_keep=-c
	if [ -n "$CONF_IMAGE" ]; then
		echo "strata: -f is not supported: restore the archive with sysupgrade -r after the update"
		exit 1
	fi
	rm -f "$CONF_TAR" # strata carries the files themselves, not an archive
	# shellcheck disable=SC2086 # nothing or one option
	/sbin/strata update install $strata_keep "$IMAGE" || exit 1
	v "Rebooting into the new slot"
	sync
	reboot
	exit 0
}

sysupgrade_pre_upgrade="$sysupgrade_pre_upgrade strata_sysupgrade"
