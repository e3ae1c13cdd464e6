# SPDX-License-Identifier: GPL-2.0-only
"""Foundation: a layered root assembled by strata on the NOR boards."""
import os
import re

from flashimg import cpio_pages, initramfs_path, read_initramfs
from scenario import scenario

NOR = "qemu_x86_64_nor"
ARM64 = "qemu_aarch64_virt"
# Debian's kernel package: the board's modules loaded from the initramfs
MODULAR = "qemu_x86_64_nor@modular"


@scenario(NOR, ARM64)
def boot_assembles_overlay_root(ctx):
    vm = ctx.machine().boot()
    # PID 1 is the real init, not strata, and / is an overlay of squashfs + jffs2
    assert vm.out("cat /proc/1/comm") == "init"
    assert vm.out("readlink /proc/1/exe") == "/bin/busybox"
    # / is the user overlay over the system overlay over the squashfs
    root = ctx.mount_at(vm, "/")
    assert root["fstype"] == "overlay", root
    # one "lowerdir+" per layer with the new mount API, "lowerdir=" with mount(2)
    assert re.search(r"lowerdir\+?=/run/strata/system(,|$)", root["options"]), root
    assert "upperdir=/run/strata/data/user.1/upper" in root["options"], root
    system = ctx.mount_at(vm, "/run/strata/system")
    assert system["fstype"] == "overlay" and system["options"].startswith("rw"), system
    assert re.search(r"lowerdir\+?=/run/strata/lower/0(,|$)", system["options"]), system
    assert "upperdir=/run/strata/data/system.1/upper" in system["options"], system
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    assert (lower["fstype"], lower["source"]) == ("squashfs", "/dev/mtdblock0"), lower
    assert lower["options"].startswith("ro"), lower
    data = ctx.mount_at(vm, "/run/strata/data")
    assert (data["fstype"], data["source"]) == ("jffs2", "mtd1"), data
    mtd = vm.out("cat /proc/mtd")
    assert 'mtd0: 02000000 00020000 "rootfs"' in mtd, mtd
    assert '"rootfs_data"' in mtd, mtd
    # API filesystems were moved, not mounted twice; nothing is left of the initramfs
    for mp in ("/dev", "/proc", "/sys", "/run"):
        assert [m["mountpoint"] for m in ctx.mounts(vm)].count(mp) == 1, mp
    assert vm.sh("test -e /init", check=False)[0] != 0
    assert vm.sh("test -e /newroot", check=False)[0] != 0
    # the runtime tool in the root image reads this boot's record
    assert "mode:      normal" in vm.out("strata status")
    # log lines reached the kernel log
    dmesg = vm.out("dmesg")
    assert "strata: starting" in dmesg and "strata: exec /sbin/init" in dmesg, dmesg


@scenario(NOR, ARM64, MODULAR)
def boot_record_has_phases(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert 0 < rec["init_start_ns"] < rec["exec_ns"], rec
    names = [p["name"] for p in rec["phases"]]
    assert names == ["api-mounts", "cmdline", "modules", "partitions", "verity", "upper", "lower",
                     "layers", "overlay", "switch-root"], names
    # in order of their start; the lowers are found and measured while the modules load,
    # and the uppers mounted (as soon as their file system is in) while they are measured
    ph = {p["name"]: p for p in rec["phases"]}
    prev = rec["init_start_ns"]
    for p in rec["phases"]:
        assert prev <= p["start_ns"] <= p["end_ns"] <= rec["exec_ns"], p
        prev = p["start_ns"]
    assert ph["partitions"]["start_ns"] < ph["modules"]["end_ns"], ph
    assert ph["partitions"]["end_ns"] <= ph["upper"]["start_ns"], ph
    # overlayfs is in before the overlays are mounted
    assert ph["modules"]["end_ns"] <= ph["overlay"]["start_ns"], ph
    # nothing of a lower is mounted before its verdict, no request applied before that
    assert ph["upper"]["end_ns"] <= ph["verity"]["end_ns"] <= ph["lower"]["start_ns"], ph
    assert ph["lower"]["end_ns"] <= ph["layers"]["start_ns"], ph
    assert ph["layers"]["end_ns"] <= ph["overlay"]["start_ns"], ph
    assert rec["mode"] == "normal" and rec["degraded_reason"] == "", rec
    assert rec["init"] == "/sbin/init" and rec["fatal_phase"] == rec["fatal_reason"] == "", rec
    assert rec["slot"] == "", rec  # no strata.slot=: not booted from a slot
    wall = rec["exec_ns"] - rec["init_start_ns"]
    # CPU counts from strata's main(), not from the kernel's initcalls that PID 1 ran before
    assert 0 < rec["cpu_user_ns"] < wall and 0 < rec["cpu_sys_ns"] < 2 * wall, rec
    assert rec["cpu_ns"] < 2 * wall, rec
    assert 0 < rec["maxrss_kb"] < 1024, rec
    # the initramfs (strata, busybox, any modules: every file it unpacked) is freed
    # before exec; what remains is the running strata executable, freed by the exec itself
    unpacked = cpio_pages(read_initramfs(initramfs_path(dev)))
    assert unpacked > 1024 * 1024 and rec["initramfs_bytes_before"] >= unpacked, (unpacked, rec)
    exe = int(vm.out("stat -L -c %s /sbin/strata"))  # the same binary, per architecture
    assert rec["initramfs_bytes_after"] <= (exe + 4095) // 4096 * 4096, (exe, rec)
    layers = {(l["role"], l["fstype"]) for l in rec["layers"]}
    assert layers == {("lower", "squashfs"), ("upper", "jffs2"), ("system", "overlay"),
                      ("root", "overlay")}, layers
    assert rec["generations"] == {"system": 1, "user": 1}, rec


@scenario(NOR, ARM64)
def changes_persist_across_reboot(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo kept-$((6*7)) > /root/note && rm /etc/os-release && mkdir -p /srv/a/b")
    vm.sh("sync")
    # through busybox init's own shutdown here (elsewhere the harness's short one)
    assert vm.poweroff(through_init=True) == 0
    vm = dev.boot()
    assert vm.out("cat /root/note") == "kept-42"
    assert vm.sh("test -e /etc/os-release", check=False)[0] != 0
    assert vm.sh("test -d /srv/a/b", check=False)[0] == 0
    # the deletion is a whiteout (char 0:0) in the upper, the lower is untouched
    assert vm.out("stat -c %F:%t:%T /run/strata/data/user.1/upper/etc/os-release") == \
        "character special file:0:0"
    assert vm.out("cat /run/strata/lower/0/etc/os-release").startswith("NAME=")


@scenario(NOR)
def missing_root_partition_reaches_emergency_shell(ctx):
    vm = ctx.machine().boot(append="strata.root=nosuch strata.rootwait=300")
    vm.expect(r"root partition 'nosuch' not found after 300 ms; MTD partitions found: "
              r"\"rootfs\", \"rootfs_data\"", from_start=True)
    # the shell runs in the initramfs, with strata still PID 1
    assert vm.out("cat /proc/1/comm") == "init"
    assert vm.sh("test -x /init")[0] == 0
    dmesg = vm.out("dmesg")
    assert "strata: FATAL: root partition 'nosuch'" in dmesg
    assert dmesg.count("FATAL:") == 1, dmesg  # logged once, by the phase runner
    # the record names the phase that stopped the boot and why
    rec = ctx.boot_record(vm)
    assert rec["fatal_phase"] == "partitions", rec
    assert "root partition 'nosuch' not found" in rec["fatal_reason"], rec
    assert "partitions" in [p["name"] for p in rec["phases"]], rec


@scenario(NOR)
def fatal_reboot_policy_reboots(ctx):
    vm = ctx.machine().boot(append="strata.root=nosuch strata.rootwait=0 strata.fatal=reboot",
                            wait_shell=False)
    vm.expect(r"FATAL: root partition 'nosuch' not found", 90)
    vm.expect(r"rebooting in \d+ s", 30)
    # -no-reboot turns the guest's reboot into QEMU exiting
    vm.wait_exit(60)
    assert "(strata emergency)" not in vm.text


@scenario(NOR)
def cmdline_garbage_is_rejected_by_name(ctx):
    vm = ctx.machine().boot(append='strata.fatal=bogus strata.rootwait=12x strata.nonsense=1 '
                                   'strata.init=relative "strata.root=a b/c" strata.debug=maybe')
    rec = ctx.boot_record(vm)
    assert rec["cmdline_rejected"] == 6, rec
    assert rec["mode"] == "normal"
    dmesg = vm.out("dmesg")
    for line in ("'strata.fatal': expects shell, hang or reboot",
                 "'strata.rootwait': expects milliseconds",
                 "'strata.nonsense': is not a known key",
                 "'strata.init': must be an absolute path",
                 "'strata.root': is not a partition name",
                 "'strata.debug': expects 0 or 1"):
        assert line in dmesg, line


@scenario(NOR, ARM64, MODULAR)
def module_parameters_from_cmdline(ctx):
    # "MODULE.param=" words reach the module as with modprobe: a second phram
    # device appears next to the board's own, over the start of its NOR
    # the board's NOR address: where start-qemu.sh loads flash-rootfs.bin
    text = open(os.path.join(ctx.images, "start-qemu.sh")).read()
    nor = str(int(re.search(r"flash-rootfs\.bin,addr=(0x[0-9a-f]+)", text).group(1), 16))
    vm = ctx.machine().boot(append="phram.phram=extra,%s,0x100000,131072" % nor)
    mtd = vm.out("cat /proc/mtd")
    assert '"extra"' in mtd and '"rootfs"' in mtd, mtd
