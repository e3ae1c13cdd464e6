# SPDX-License-Identifier: GPL-2.0-only
"""A real OpenWrt userland (18.06.4: procd, preinit, uci, opkg, LuCI) on strata, with
fstools' commands replaced: OpenWrt's layout and its own flows (tests/variants/openwrt.sh)."""
import io
import os
import struct
import subprocess
import tarfile

from scenario import scenario

NOR = "qemu_x86_64_nor@openwrt"
NAND = "qemu_x86_64_nand@openwrt"
ERASE = 128 << 10  # the NOR board's rootfs_data erase block (block2mtd)


def boot_openwrt(dev, vm=None):
    """Boots into procd and activates OpenWrt's console (askfirst). With vm,
    the running system rebooted itself (-no-reboot: QEMU exits) first."""
    if vm:
        vm.wait_exit(120)
    vm = dev.boot(wait_shell=False, timeout=180)
    # preinit reads the console for its failsafe key: type nothing before this
    vm.expect(r"Please press Enter to activate this console", 180)
    vm.send("\n")
    vm.wait_shell(60)
    # the console comes up while rc.d still runs: wait for procd's end of boot (syslog)
    vm.sh("i=0; while ! logread | grep -q -- '- init complete -' && [ $i -lt 120 ]; do "
          "sleep 1; i=$((i+1)); done; logread | grep -q -- '- init complete -'", timeout=150)
    return vm


def hostname(vm):
    return vm.out("uci get system.@system[0].hostname")


def upper_of_root(ctx):
    """Where the changes made through / live: OpenWrt's /overlay/upper."""
    return "/run/strata/data/system.1/upper" if ctx.stack == "system" else \
        "/run/strata/userdata/user.1/upper" if ctx.board == NAND else \
        "/run/strata/data/user.1/upper"


@scenario(NOR, NAND, single=(NAND,))
def openwrt_boots_with_fstools_layout(ctx):
    dev = ctx.machine()
    vm = boot_openwrt(dev)
    assert vm.out("cat /proc/1/comm") == "procd"
    root = ctx.mount_at(vm, "/")
    assert (root["source"], root["fstype"]) == ("overlayfs:/overlay", "overlay"), root
    # no RAM overlay of fstools' over strata's root
    assert not [m for m in ctx.mounts(vm) if m["mountpoint"] in ("/tmp/root", "/overlay")
                and m["fstype"] == "tmpfs"]
    flash = "ubifs" if ctx.board == NAND else "jffs2"
    overlay = ctx.mount_at(vm, "/overlay")
    assert overlay["fstype"] == flash, overlay
    assert ctx.mount_at(vm, "/rom")["fstype"] == "squashfs"
    assert "ro" in ctx.mount_at(vm, "/rom")["options"].split(",")
    assert sorted(vm.out("ls -A /overlay | cat").split()) == ["upper", "work"]  # no colours
    # /overlay/upper is the upper of / (a change through / lands there, and only there)
    assert vm.out("ls -di /overlay/upper").split()[0] == \
        vm.out("ls -di " + upper_of_root(ctx)).split()[0]
    vm.sh("echo through-root > /etc/owrt-probe && sync")
    assert vm.out("cat /overlay/upper/etc/owrt-probe") == "through-root"
    if ctx.stack == "system user":
        assert not vm.sh("ls /run/strata/data/system.1/upper/etc/owrt-probe", check=False)[0] == 0
    # df /overlay and opkg's free-space check (statvfs) see the flash filesystem
    df = vm.out("df -k /overlay | tail -n 1").split()
    assert df[1] == vm.out("df -k %s | tail -n 1" % upper_of_root(ctx)).split()[1], df
    for name in ("mount_root", "jffs2reset", "jffs2mark", "firstboot", "factoryreset"):
        assert vm.out("readlink /sbin/" + name) == "strata", name
    # preinit ran mount_root; it left the assembled root alone; done said nothing
    assert "mount_root: the root is assembled" in vm.text
    assert vm.out("mount_root done; echo $?") == "0"
    rc, out = vm.sh("mount_root switch 2>&1", check=False)
    assert rc == 1 and "'switch' is not supported" in out, out
    # the reset button script as procd's button hotplug runs it: held, it asks for a timeout
    rc, _ = vm.sh("ACTION=pressed BUTTON=reset SEEN=0 sh /etc/rc.button/reset", check=False)
    assert rc == 5, rc


@scenario(NOR, NAND, single=(NOR,))
def openwrt_uci_sysupgrade_backup_button_and_firstboot(ctx):
    dev = ctx.machine()
    vm = boot_openwrt(dev)
    assert hostname(vm) == "OpenWrt"
    vm.sh("uci set system.@system[0].hostname=kept && uci commit system")
    vm.sh("sysupgrade -b /tmp/backup.tgz")
    assert "etc/config/system" in vm.out("tar tzf /tmp/backup.tgz")
    vm.sh("uci set system.@system[0].hostname=changed && uci commit system")
    vm.sh("sysupgrade -r /tmp/backup.tgz")
    assert hostname(vm) == "kept"
    assert "hostname 'kept'" in vm.out("cat /overlay/upper/etc/config/system")
    vm.sh("echo mine > /root/mine && sync")
    vm.poweroff()

    # the restored configuration persists; the reset button, as procd runs its script
    vm = boot_openwrt(dev)
    assert hostname(vm) == "kept"
    assert vm.out("cat /proc/sys/kernel/hostname") == "kept"
    vm.send("ACTION=released BUTTON=reset SEEN=6 sh /etc/rc.button/reset\n")
    vm.expect("FACTORY RESET", 30)
    vm = boot_openwrt(dev, vm)
    rec = ctx.boot_record(vm)
    assert rec["request_applied"] == "reset --full", rec
    assert hostname(vm) == "OpenWrt"
    assert vm.sh("test -e /root/mine", check=False)[0] == 1

    # LuCI's "Reset to defaults"
    vm.sh("uci set system.@system[0].hostname=again && uci commit system && sync")
    vm.send("firstboot -r -y\n")
    vm = boot_openwrt(dev, vm)
    assert ctx.boot_record(vm)["request_applied"] == "reset --full"
    assert hostname(vm) == "OpenWrt"


@scenario(NOR)
def openwrt_failsafe_shell_on_the_assembled_root(ctx):
    dev = ctx.machine()
    vm = dev.boot(wait_shell=False, timeout=180)
    vm.expect(r"Press the \[f\] key and hit \[enter\] to enter failsafe mode", 180)
    vm.send("f\n")
    vm.expect(r"- failsafe -", 60)
    vm.wait_shell(60)
    # preinit skipped mount_root: the root strata assembled is there all the same
    assert ctx.mount_at(vm, "/")["source"] == "overlayfs:/overlay"
    assert ctx.mount_at(vm, "/overlay")["fstype"] == "jffs2"
    assert "the root is assembled" in vm.out("mount_root")
    vm.sh("echo failsafe > /root/in-failsafe && firstboot -y && sync")
    vm.send("reboot -f\n")
    vm = boot_openwrt(dev, vm)
    assert ctx.boot_record(vm)["request_applied"] == "reset --full"
    assert vm.sh("test -e /root/in-failsafe", check=False)[0] == 1


def config_archive():
    """A sysupgrade.tgz as sysupgrade -b makes it: the kept /etc files."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in (("etc/config/system", "config system\n\toption hostname 'restored'\n"
                            "\toption timezone 'UTC'\n"), ("etc/restored", "from-the-backup\n")):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(text), 0o644
            tar.addfile(info, io.BytesIO(text.encode()))
    return buf.getvalue()


def write_as_mtd_j(ctx, dev, tgz):
    """What sysupgrade's `mtd -j sysupgrade.tgz` leaves on NOR: a fresh jffs2
    holding the archive, an erase block starting 0xdeadc0de, and the blocks
    after it as they were (the old filesystem's nodes)."""
    top = os.path.join(ctx.workdir, "mtd-j")
    os.makedirs(top, exist_ok=True)
    with open(os.path.join(top, "sysupgrade.tgz"), "wb") as f:
        f.write(tgz)
    img = os.path.join(ctx.workdir, "mtd-j.jffs2")
    subprocess.run(["mkfs.jffs2", "-l", "-q", "-e", str(ERASE), "-d", top, "-o", img],
                   check=True)
    fs = open(img, "rb").read()
    blocks = (len(fs) + ERASE - 1) // ERASE
    with open(dev.path("flash-data.bin"), "r+b") as f:
        old = f.read()
        # the premise: the old filesystem has nodes past the marker
        assert any(old[o:o + 2] == b"\x85\x19" for o in range((blocks + 1) * ERASE, len(old), ERASE))
        f.seek(0)
        f.write(fs + b"\xff" * (blocks * ERASE - len(fs)))
        f.write(struct.pack(">I", 0xdeadc0de) + b"\xff" * (ERASE - 4))
    return blocks * ERASE


@scenario(NOR, NAND, single=(NAND,))
def openwrt_sysupgrade_tgz_on_the_flash_is_restored(ctx):
    dev = ctx.machine()
    vm = boot_openwrt(dev)
    vm.sh("uci set system.@system[0].hostname=old-life && uci commit system")
    vm.sh("echo old > /etc/old-life && echo mine > /root/mine")
    if ctx.board == NOR:
        # enough of the old life that its nodes lie beyond the new filesystem
        vm.sh("dd if=/dev/urandom of=/root/old-big bs=64k count=24 2>/dev/null && sync")
        vm.poweroff()
        marker = write_as_mtd_j(ctx, dev, config_archive())
    else:
        # nand_restore_config: the archive at the top of a fresh rootfs_data
        # (here: the old one, reset by the same boot that finds it), made by
        # sysupgrade -b itself
        vm.sh("echo from-the-backup > /etc/restored && echo /etc/restored >> /etc/sysupgrade.conf")
        vm.sh("uci set system.@system[0].hostname=restored && uci commit system")
        vm.sh("sysupgrade -b /run/strata/data/sysupgrade.tgz")
        vm.sh("uci set system.@system[0].hostname=old-life && uci commit system && rm /etc/restored")
        vm.sh("strata reset --full -y && sync")
        vm.poweroff()
    vm = boot_openwrt(dev)
    dmesg = vm.out("dmesg")
    assert "kept configuration /run/strata/data/sysupgrade.tgz is /sysupgrade.tgz" in dmesg
    if ctx.board == NOR:
        assert "'rootfs_data' ends at 0x%x (sysupgrade's 0xdeadc0de marker)" % marker in dmesg
    assert "- config restore -" in vm.text
    assert hostname(vm) == "restored"
    assert vm.out("cat /etc/restored") == "from-the-backup"
    for gone in ("/etc/old-life", "/root/mine", "/root/old-big"):
        assert vm.sh("test -e " + gone, check=False)[0] == 1, gone
    assert vm.sh("test -e /run/strata/data/sysupgrade.tgz", check=False)[0] == 1
    # /etc/init.d/done removes it once the boot is done
    vm.sh("i=0; while [ -e /sysupgrade.tgz ] && [ $i -lt 60 ]; do sleep 1; i=$((i+1)); done; "
          "test ! -e /sysupgrade.tgz")
    vm.poweroff()
    vm = boot_openwrt(dev)
    assert hostname(vm) == "restored"
    assert "- config restore -" not in vm.text
