# SPDX-License-Identifier: GPL-2.0-only
"""The NAND/UBI board: squashfs through ubiblock, ubifs upper created on first boot."""
import hashlib
import os
import subprocess

from scenario import scenario

NAND = "qemu_x86_64_nand"


@scenario(NAND)
def nand_first_boot_creates_data_volume(ctx):
    vm = ctx.machine().boot()
    dmesg = vm.out("dmesg")
    assert "strata: first boot: created UBI volume 'rootfs_data' (ubi0_2," in dmesg, dmesg[-2000:]
    rec = ctx.boot_record(vm)
    assert rec["first_boot"] is True and rec["mode"] == "normal", rec
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    assert (lower["fstype"], lower["source"]) == ("squashfs", "/dev/ubiblock0_0"), lower
    data = ctx.mount_at(vm, "/run/strata/data")
    assert (data["fstype"], data["source"]) == ("ubifs", "ubi0:rootfs_data"), data
    # the user layer has a volume of its own, sharing the free space
    assert "strata: first boot: created UBI volume 'rootfs_user' (ubi0_3," in dmesg, dmesg[-2000:]
    user = ctx.mount_at(vm, "/run/strata/userdata")
    assert (user["fstype"], user["source"]) == ("ubifs", "ubi0:rootfs_user"), user
    root = ctx.mount_at(vm, "/")
    assert root["fstype"] == "overlay", root
    assert "upperdir=/run/strata/userdata/user.1/upper" in root["options"], root
    assert "upperdir=/run/strata/data/system.1/upper" in \
        ctx.mount_at(vm, "/run/strata/system")["options"]
    assert vm.out("cat /sys/class/ubi/ubi0_2/name") == "rootfs_data"
    sizes = [int(vm.out("cat /sys/class/ubi/ubi0_%d/reserved_ebs" % i)) for i in (2, 3)]
    assert abs(sizes[0] - sizes[1]) <= 1, sizes
    # ubifs has what overlayfs wants from an upper
    assert rec["capabilities"] == {"rename_whiteout": True, "rename_exchange": True}, rec


@scenario(NAND)
def nand_user_volume_named_at_boot_gets_its_share(ctx):
    # strata.user= names the user layer's volume at boot: created on first boot with
    # CONFIG_STRATA_USER_PART_PERCENT (50) of the free space, as the built-in one is
    vm = ctx.machine().boot(append="strata.user=my_user")
    dmesg = vm.out("dmesg")
    assert "strata: first boot: created UBI volume 'my_user' (ubi0_3," in dmesg, dmesg[-2000:]
    assert "'rootfs_user'" not in dmesg, dmesg[-2000:]
    user = ctx.mount_at(vm, "/run/strata/userdata")
    assert (user["fstype"], user["source"]) == ("ubifs", "ubi0:my_user"), user
    sizes = [int(vm.out("cat /sys/class/ubi/ubi0_%d/reserved_ebs" % i)) for i in (2, 3)]
    assert sizes[1] > 0 and abs(sizes[0] - sizes[1]) <= 1, sizes


@scenario(NAND)
def nand_changes_persist_across_reboot(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo nand > /root/note && rm /etc/os-release && mv /etc/group /etc/group.moved")
    vm.sh("sync")
    vm.poweroff()
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["first_boot"] is False, rec
    assert "created UBI volume" not in vm.out("dmesg")
    assert vm.out("cat /root/note") == "nand"
    assert vm.sh("test -e /etc/os-release", check=False)[0] != 0
    assert vm.sh("test -e /etc/group.moved && test ! -e /etc/group", check=False)[0] == 0
    assert vm.out("ls /sys/class/ubi/ | grep -c '^ubi0_'") == "4"
    assert vm.out("cat /run/strata/userdata/user.1/upper/root/note") == "nand"
    # the root image's shutdown remounted both uppers read-only: marked clean,
    # they mount without journal recovery; a power cut leaves them to recover
    assert "recovery needed" not in vm.out("dmesg | grep UBIFS"), vm.out("dmesg | grep UBIFS")
    vm.sh("echo cut > /root/cut && sync")
    vm.kill()
    vm = dev.boot()
    ubifs = vm.out("dmesg | grep UBIFS")
    assert "UBIFS (ubi0:2): recovery needed" in ubifs and \
        "UBIFS (ubi0:3): recovery needed" in ubifs, ubifs
    assert vm.out("cat /root/cut") == "cut"


@scenario(NAND)
def nand_missing_root_volume_lists_volumes(ctx):
    vm = ctx.machine().boot(append="strata.root=nosuch strata.rootwait=200")
    m = vm.expect(r"root volume 'nosuch' not found on ubi0 after 200 ms; volumes found: "
                  r"([^\r\n]*) \(strata.root= selects another\)", from_start=True)
    assert sorted(m.group(1).decode().split(", ")) == ['"rootfs"', '"strata_log"'], m.group(1)


def ubi_image(ctx, path, data_volume=None):
    """Writes a 32 MiB UBI flash as the board's, optionally with a rootfs_data
    volume holding the given bytes."""
    work = os.path.join(ctx.workdir, "ubi")
    os.makedirs(work, exist_ok=True)
    cfg = ["[rootfs]", "mode=ubi", "image=%s" % os.path.join(ctx.images, "rootfs.squashfs"),
           "vol_id=0", "vol_type=static", "vol_name=rootfs",
           "[strata_log]", "mode=ubi", "vol_id=1", "vol_type=dynamic", "vol_size=130944",
           "vol_name=strata_log"]
    if data_volume is not None:
        blob = os.path.join(work, "data.bin")
        open(blob, "wb").write(data_volume)
        cfg += ["[rootfs_data]", "mode=ubi", "image=%s" % blob, "vol_id=2",
                "vol_type=dynamic", "vol_size=4MiB", "vol_name=rootfs_data"]
    open(os.path.join(work, "ubinize.cfg"), "w").write("\n".join(cfg) + "\n")
    img = os.path.join(work, "ubi.img")
    subprocess.check_call(["ubinize", "-o", img, "-p", "131072", "-m", "1", "-Q", "0",
                           os.path.join(work, "ubinize.cfg")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    raw = open(img, "rb").read()
    open(path, "wb").write(raw + b"\xff" * ((32 << 20) - len(raw)))


@scenario(NAND)
def nand_garbage_data_volume_degrades_and_is_remembered(ctx):
    dev = ctx.machine()
    blob = os.urandom(1 << 20)
    ubi_image(ctx, dev.path("flash-data.bin"), data_volume=blob)
    vm = dev.boot()
    reason = "'rootfs_data' holds unrecognised data, not ubifs; left untouched"
    vm.expect("DEGRADED BOOT", from_start=True)
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "degraded" and rec["degraded_reason"].startswith(reason), rec
    assert rec["record"] == "/dev/ubi0_1", rec
    assert ctx.mount_at(vm, "/run/strata/data")["fstype"] == "tmpfs"
    # what the volume held is still there, byte for byte
    got = vm.out("dd if=/dev/ubi0_2 bs=65536 count=16 2>/dev/null | md5sum").split()[0]
    assert got == hashlib.md5(blob).hexdigest(), "the data volume was changed"
    vm.poweroff()
    # the record in strata_log (an atomic LEB change) outlives the boot
    vm = dev.boot()
    prev = ctx.boot_record(vm)["previous_boot"]
    assert prev["mode"] == "degraded" and prev["reason"].startswith(reason), prev
    assert prev["seq"] == 1 and prev["errno"] > 0, prev
    rc, out = vm.sh("strata status", check=False)
    assert rc == 1 and "the boot before this one was DEGRADED: " + reason in out, out


@scenario(NAND)
def nand_power_cut_after_volume_creation(ctx):
    ctx.cut_power_at(r"first boot: created UBI volume 'rootfs_data'")
