# SPDX-License-Identifier: GPL-2.0-only
"""The flash upper on NOR/jffs2: first boot, bad contents, and the degraded mode."""
import hashlib
import os
import struct
import subprocess
import zlib

from scenario import scenario

NOR = "qemu_x86_64_nor"
DATA = "flash-data.bin"


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def assert_degraded(ctx, vm, reason):
    """tmpfs mode is never silent: banner, kmsg, boot record, status exit code."""
    vm.expect(r"DEGRADED BOOT: changes are kept in RAM", from_start=True)
    assert reason in vm.text, reason
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "degraded" and reason in rec["degraded_reason"], rec
    assert rec["degraded_errno"] > 0, rec
    assert ctx.mount_at(vm, "/run/strata/data")["fstype"] == "tmpfs"
    rc, out = vm.sh("strata status", check=False)
    assert rc == 1 and "mode:      degraded" in out and reason in out, (rc, out)
    assert "flash upper unusable: " + reason in vm.out("dmesg")
    # the volatile root still works
    vm.sh("echo x > /root/volatile && test -s /root/volatile")


@scenario(NOR)
def nor_first_boot_on_erased_flash(ctx):
    dev = ctx.machine()
    with open(dev.path(DATA), "rb") as f:
        assert set(f.read()) == {0xff}, "the data flash must start erased"
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["first_boot"] is True and rec["first_boot_format_ns"] > 0, rec
    assert rec["mode"] == "normal"
    assert "strata: first boot: 'rootfs_data' is erased flash" in vm.out("dmesg")
    assert "first boot" in vm.out("strata status")
    vm.sh("echo 1 > /root/second && sync")
    vm.poweroff()
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["first_boot"] is False, rec
    assert vm.out("cat /root/second") == "1"


@scenario(NOR)
def garbage_in_rootfs_data_degrades_and_keeps_it(ctx):
    dev = ctx.machine()
    with open(dev.path(DATA), "wb") as f:
        f.write(os.urandom(8 << 20))
    before = digest(dev.path(DATA))
    vm = dev.boot()
    assert_degraded(ctx, vm, "'rootfs_data' holds unrecognised data, not jffs2; left untouched")
    vm.poweroff()
    assert digest(dev.path(DATA)) == before, "strata wrote to flash it could not identify"


def erase(path):
    size = os.path.getsize(path)
    with open(path, "wb") as f:
        f.write(b"\xff" * size)


@scenario(NOR)
def degraded_boot_is_remembered_across_reboot(ctx):
    dev = ctx.machine()
    with open(dev.path(DATA), "wb") as f:
        f.write(os.urandom(8 << 20))
    vm = dev.boot()
    reason = "'rootfs_data' holds unrecognised data, not jffs2; left untouched"
    assert_degraded(ctx, vm, reason)
    assert ctx.boot_record(vm)["record"] == "/dev/mtd2"
    vm.poweroff()
    # the flash is replaced: the next boot is normal and says what the last one was
    erase(dev.path(DATA))
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal", rec
    prev = rec["previous_boot"]
    assert prev["mode"] == "degraded" and prev["reason"].startswith(reason), prev
    assert prev["errno"] > 0, prev
    assert "the boot before this one was DEGRADED: " + reason in vm.out("strata status")
    assert "the previous boot was degraded: " + reason in vm.out("dmesg")
    vm.poweroff()
    # the good boot was recorded too: the news is not repeated
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["previous_boot"]["mode"] == "normal", rec
    assert rec["previous_boot"]["seq"] == prev["seq"] + 1, rec
    assert "DEGRADED" not in vm.out("strata status")


SLOT, BLOCK = 256, 131072


def encode_record(seq, mode="degraded", err=5, reason="test"):
    """The on-flash format of init/lib/record.c, written independently as an oracle."""
    text = ("mode=%s\nerrno=%d\nreason=%s\n" % (mode, err, reason)).encode()
    body = struct.pack("<I", len(text)) + text.ljust(SLOT - 16, b"\0")
    return b"STRB" + struct.pack("<II", seq, zlib.crc32(body)) + body


def decode_record(slot):
    if slot[:4] != b"STRB":
        return None
    seq, crc = struct.unpack("<II", slot[4:12])
    if zlib.crc32(slot[12:]) != crc:
        return None
    n = struct.unpack("<I", slot[12:16])[0]
    return seq, slot[16:16 + n].decode()


@scenario(NOR)
def boot_record_ring_wraps_without_losing_the_newest(ctx):
    # a full ring (1024 records over 2 erase blocks, newest in the last slot):
    # the next record erases the first block, never the one holding the newest
    dev = ctx.machine()
    log = dev.path("flash-log.bin")
    with open(log, "wb") as f:
        for seq in range(1, 2 * BLOCK // SLOT + 1):
            f.write(encode_record(seq))
    vm = dev.boot(append="strata.data=nosuch")
    assert ctx.boot_record(vm)["previous_boot"]["seq"] == 1024
    vm.poweroff()
    data = open(log, "rb").read()
    seq, text = decode_record(data[:SLOT])
    assert seq == 1025 and "reason=data partition 'nosuch' not found" in text, text
    assert data[SLOT:BLOCK] == b"\xff" * (BLOCK - SLOT), "first block not erased"
    assert decode_record(data[BLOCK:BLOCK + SLOT])[0] == 513, "second block lost"
    vm = dev.boot()
    prev = ctx.boot_record(vm)["previous_boot"]
    assert prev["seq"] == 1025 and prev["mode"] == "degraded", prev


@scenario(NOR)
def torn_boot_record_never_costs_the_newest(ctx):
    # a power cut tore the slot after the newest record: the new record goes
    # to the next erase block and the block holding the newest is left alone
    dev = ctx.machine()
    log = dev.path("flash-log.bin")
    with open(log, "r+b") as f:
        for seq in range(1, 6):
            f.write(encode_record(seq, reason="old %d" % seq))
        f.write(encode_record(6)[:100])  # torn: header and half the text
    vm = dev.boot(append="strata.data=nosuch")
    prev = ctx.boot_record(vm)["previous_boot"]
    assert prev["seq"] == 5 and prev["reason"] == "old 5", prev
    vm.poweroff()
    data = open(log, "rb").read()
    assert [decode_record(data[i * SLOT:(i + 1) * SLOT])[0] for i in range(5)] == [1, 2, 3, 4, 5]
    seq, text = decode_record(data[BLOCK:BLOCK + SLOT])
    assert seq == 6 and "nosuch" in text, text


@scenario(NOR)
def wrong_filesystem_in_rootfs_data_is_left_alone(ctx):
    dev = ctx.machine()
    subprocess.check_call(["mke2fs", "-q", "-F", "-t", "ext4", dev.path(DATA)])
    before = digest(dev.path(DATA))
    vm = dev.boot()
    assert_degraded(ctx, vm, "'rootfs_data' holds ext2/3/4, not jffs2; left untouched")
    vm.poweroff()
    assert digest(dev.path(DATA)) == before


@scenario(NOR)
def missing_rootfs_data_names_what_was_found(ctx):
    dev = ctx.machine()
    vm = dev.boot(append="strata.data=nosuch")
    assert_degraded(ctx, vm, "data partition 'nosuch' not found")
    assert "MTD partitions found: \"rootfs\", \"rootfs_data\"" in vm.text
    vm.poweroff()
    # a missing user partition is named as the user partition, in one kmsg line,
    # the boot record, status, the console and the next boot's outcome record
    vm = dev.boot(append="strata.user=nosuch_user")
    reason = "user partition 'nosuch_user' not found; MTD partitions found: \"rootfs\", " \
        "\"rootfs_data\", \"strata_log\" (strata.user= selects another)"
    assert_degraded(ctx, vm, reason)
    assert "data partition" not in ctx.boot_record(vm)["degraded_reason"]
    assert vm.out("dmesg | grep -c \"'nosuch_user' not found\"") == "1"
    assert ctx.boot_record(vm)["previous_boot"]["reason"].startswith("data partition 'nosuch'")
    vm.poweroff()
    vm = dev.boot()
    prev = ctx.boot_record(vm)["previous_boot"]
    assert prev["mode"] == "degraded" and prev["reason"] in reason, prev


@scenario(NOR)
def full_upper_cannot_create_work_dirs(ctx):
    dev = ctx.machine()
    tree = os.path.join(ctx.workdir, "fill")
    os.makedirs(tree, exist_ok=True)
    with open(os.path.join(tree, "ballast"), "wb") as f:
        f.write(os.urandom(8 << 20))
    subprocess.check_call(["mkfs.jffs2", "-q", "-l", "-e", "128KiB", "-p", str(8 << 20),
                           "-r", tree, "-o", dev.path(DATA)], stderr=subprocess.DEVNULL)
    os.truncate(dev.path(DATA), 8 << 20)
    vm = dev.boot()
    assert_degraded(ctx, vm, "cannot create /run/strata/data/system.1/upper on 'rootfs_data': "
                             "No space left on device")


@scenario(NOR)
def degraded_emergency_policy_gives_a_shell(ctx):
    dev = ctx.machine()
    with open(dev.path(DATA), "wb") as f:
        f.write(os.urandom(8 << 20))
    vm = dev.boot(append="strata.degraded=emergency")
    vm.expect(r"FATAL: flash upper unusable \(strata.degraded=emergency\): 'rootfs_data' "
              r"holds unrecognised data", from_start=True)
    assert vm.sh("test -x /init")[0] == 0  # still in the initramfs


@scenario(NOR)
def jffs2_rename_limits_are_probed_and_pinned(ctx):
    vm = ctx.machine().boot()
    rec = ctx.boot_record(vm)
    assert rec["capabilities"] == {"rename_whiteout": False, "rename_exchange": False}, rec
    # probed once per kernel: the result is kept on the flash for the next boots
    release = vm.out("uname -r")
    assert vm.out("cat /run/strata/data/strata.caps") == \
        "kernel %s\nrename_whiteout 0\nrename_exchange 0" % release
    status = vm.out("strata status")
    assert "upper lacks RENAME_WHITEOUT" in status and "lacks RENAME_EXCHANGE" in status
    # pinned behaviour of an overlay on vanilla jffs2 (no RENAME_WHITEOUT):
    # names that exist only in the upper rename fine, deletions of lower
    # names work (overlayfs makes the whiteout with mknod) ...
    vm.sh("cp /etc/os-release /etc/new && mv /etc/new /etc/new2 && mkdir /d && mv /d /d2")
    vm.sh("rm /etc/passwd && test ! -e /etc/passwd")
    # ... but renaming a name that also exists in the lower needs a whiteout
    # at the old name, atomically: EINVAL, for files whether copied up or not
    for path in ("/etc/os-release", "/etc/group"):
        vm.sh("echo >> /etc/group")
        rc, out = vm.sh("mv %s %s.moved 2>&1" % (path, path), check=False)
        assert rc == 1 and "Invalid argument" in out, (path, out)
        vm.sh("test -e %s && test ! -e %s.moved" % (path, path))
    # ... and removing a directory that exists in the lower fails too (its
    # files go, each leaving a whiteout; the directory stays)
    rc, out = vm.sh("rm -rf /etc/init.d 2>&1", check=False)
    assert rc == 1 and "can't remove '/etc/init.d': Invalid argument" in out, out
    vm.sh("test -d /etc/init.d && test ! -e /etc/init.d/rcS")


@scenario(NOR)
def deadcode_marker_means_format(ctx):
    # OpenWrt's sysupgrade leaves 0xdeadc0de where rootfs_data starts: a
    # partition never formatted since; strata starts an empty jffs2 on it
    dev = ctx.machine()
    with open(dev.path(DATA), "r+b") as f:
        f.write(b"\xde\xad\xc0\xde")
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal" and rec["first_boot"] is True, rec
    assert "'rootfs_data' is 0xdeadc0de format marker; erased 1 of 64 blocks, starting an " \
        "empty jffs2" in vm.out("dmesg")
    vm.sh("echo kept > /root/f && sync")
    vm.poweroff()
    vm = dev.boot()
    assert vm.out("cat /root/f") == "kept"


@scenario(NOR)
def power_cut_during_first_boot(ctx):
    ctx.cut_power_at(r"first boot: 'rootfs_data' is erased flash")


@scenario(NOR)
def read_only_flash_degrades_and_keeps_it(ctx):
    dev = ctx.machine()
    script = dev.path("start-qemu.sh")
    text = open(script).read()
    assert "flash-data.bin,if=virtio,format=raw" in text
    open(script, "w").write(text.replace("flash-data.bin,if=virtio,format=raw",
                                         "flash-data.bin,if=virtio,format=raw,readonly=on"))
    before = digest(dev.path(DATA))
    vm = dev.boot()
    assert_degraded(ctx, vm, "data partition 'rootfs_data' not found")
    assert "block2mtd: error: cannot open device /dev/vda" in vm.out("dmesg")
    vm.poweroff()
    assert digest(dev.path(DATA)) == before


@scenario(NOR)
def degraded_reboot_policy_reboots(ctx):
    dev = ctx.machine()
    with open(dev.path(DATA), "wb") as f:
        f.write(os.urandom(8 << 20))
    vm = dev.boot(append="strata.degraded=reboot", wait_shell=False)
    vm.expect(r"FATAL: flash upper unusable \(strata.degraded=reboot\): 'rootfs_data' holds "
              r"unrecognised data", 90)
    vm.expect(r"rebooting in \d+ s", 30)
    vm.wait_exit(60)
    assert "DEGRADED BOOT" not in vm.text
