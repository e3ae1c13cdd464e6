# SPDX-License-Identifier: GPL-2.0-only
"""A root filesystem strata did not make: Debian's systemd as PID 1 after the
hand-off (tests/variants/debian.sh builds it from Debian's packages, on
Debian's kernel)."""
from scenario import COLLAPSED, scenario

NOR = "qemu_x86_64_nor@debian"


@scenario(NOR)
def systemd_root_boots_persists_and_resets(ctx):
    dev = ctx.machine()
    vm = dev.boot(timeout=300)
    assert vm.out("cat /proc/1/comm") == "systemd"
    state = vm.out("systemctl is-system-running --wait", timeout=180)
    failed = vm.out("systemctl --failed --no-legend --plain")
    assert state == "running", (state, failed)
    # what systemd expects of the hand-off: /run a tmpfs, the API filesystems
    # moved, nothing left of the initramfs
    assert vm.out("stat -f -c %T /run") == "tmpfs"
    mounts = [m["mountpoint"] for m in ctx.mounts(vm)]
    for api in ("/dev", "/proc", "/sys", "/run"):
        assert api in mounts, mounts
    assert not [m for m in mounts if m.startswith("/newroot")], mounts
    assert vm.sh("test -e /init", check=False)[0] == 1
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal" and rec["init"] == "/sbin/init", rec
    # the system's own state persists on the flash upper, through systemd's shutdown
    vm.sh("echo kept > /etc/debian-test && sync")
    vm.poweroff(timeout=400)
    vm = dev.boot(timeout=300)
    assert vm.out("cat /etc/debian-test") == "kept"
    # the reset request is on the flash when the command returns: a power cut
    # (quicker than systemd's shutdown under emulation) does not lose it
    vm.sh("strata reset --user -y")
    vm.kill()
    vm = dev.boot(timeout=300)
    assert vm.sh("test -e /etc/debian-test", check=False)[0] == 1
    assert ctx.boot_record(vm)["request_applied"] == "reset --user"


# an extension of /usr, as systemd-sysext finds it in /var/lib/extensions
SYSEXT = " && ".join((
    "d=/var/lib/extensions/strata-test",
    "mkdir -p $d/usr/lib/extension-release.d $d/usr/share/strata-test",
    "echo from-sysext > $d/usr/share/strata-test/hello",
    "printf 'ID=debian\\nVERSION_ID=12\\n' > $d/usr/lib/extension-release.d/"
    "extension-release.strata-test"))


@scenario(NOR)
def sysext_merges_on_the_collapsed_stack_only(ctx):
    """systemd-sysext mounts an overlay on /usr whose lowers are on /: the level the
    nested stack spends and the collapsed one leaves."""
    dev = ctx.machine()
    vm = dev.boot(timeout=300)
    vm.sh(SYSEXT + " && sync")
    # systemd 252's merge says it failed but exits 0: what counts is what it mounted
    rc, out = vm.sh("systemd-sysext merge 2>&1", check=False, timeout=120)
    assert "Failed to mount sysext" in out, (rc, out)
    assert vm.sh("test -e /usr/share/strata-test/hello", check=False)[0] == 1
    assert "maximum fs stacking depth exceeded" in vm.out("dmesg | grep overlayfs"), out
    assert "no overlay level left for overlays on /" in vm.out("strata status")
    vm.kill()  # the extension is on the flash already (sync)
    vm = dev.boot(append=COLLAPSED, timeout=300)
    assert ctx.boot_record(vm)["stack"] == ["system+user"]
    assert vm.sh("test -e /usr/share/strata-test/hello", check=False)[0] == 1
    vm.sh("systemd-sysext merge", timeout=120)
    assert vm.out("cat /usr/share/strata-test/hello") == "from-sysext"
    assert vm.sh("grep -q '^[^ ]* /usr overlay ' /proc/mounts", check=False)[0] == 0
    vm.sh("systemd-sysext unmerge", timeout=120)
    assert vm.sh("test -e /usr/share/strata-test/hello", check=False)[0] == 1
    assert vm.out("cat /etc/hostname") == "debian"
