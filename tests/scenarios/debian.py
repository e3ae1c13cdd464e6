# SPDX-License-Identifier: GPL-2.0-only
"""A root filesystem strata did not make: Debian's systemd as PID 1 after the
hand-off (tests/variants/debian.sh builds it from Debian's packages)."""
from scenario import scenario

NOR = "qemu_x86_64_nor@debian"


@scenario(NOR)
def systemd_root_boots_persists_and_resets(ctx):
    dev = ctx.machine()
    vm = dev.boot(timeout=240)
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
    vm.sh("echo kept > /etc/debian-test && systemctl enable --quiet systemd-timesyncd "
          "2>/dev/null; sync")
    vm.poweroff(timeout=300)
    vm = dev.boot(timeout=240)
    assert vm.out("cat /etc/debian-test") == "kept"
    vm.sh("strata reset --user -y")
    vm.poweroff(timeout=300)
    vm = dev.boot(timeout=240)
    assert vm.sh("test -e /etc/debian-test", check=False)[0] == 1
    assert ctx.boot_record(vm)["request_applied"] == "reset --user"
