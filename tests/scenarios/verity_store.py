# SPDX-License-Identifier: GPL-2.0-only
"""eMMC: metadata squashfs measured against the manifest, fs-verity object store as a
data-only layer with verity=require, ext4 or f2fs upper; tampering is refused for real."""
import json
import os
import subprocess

from scenario import scenario

EMMC = "qemu_x86_64_emmc"
EMMC_F2FS = "qemu_x86_64_emmc_f2fs"  # the same board with the block+f2fs back end
ORIG_RELEASE = 'NAME="strata test root"'
DISK = "flash-emmc.bin"


def rootfs_file(ctx, path):
    return os.path.join(ctx.images, "..", "build", "rootfs", path.lstrip("/"))


def object_path(ctx, path):
    """The store object ("/objects/ab/cdef...") holding the root file path."""
    digest = subprocess.run(["fsverity", "digest", "--compact", "--hash-alg=sha256",
                             "--block-size=4096", rootfs_file(ctx, path)],
                            check=True, capture_output=True, text=True).stdout.strip()
    return "/objects/%s/%s" % (digest[:2], digest[2:])


def partition(disk, name):
    """(byte offset, byte size) of the GPT partition name in the disk image."""
    table = json.loads(subprocess.run(["sfdisk", "-J", disk], check=True,
                                      capture_output=True, text=True).stdout)
    for p in table["partitiontable"]["partitions"]:
        if p.get("name") == name:
            return p["start"] * 512, p["size"] * 512
    raise AssertionError("no partition %r in %s" % (name, disk))


def flip_byte(disk, offset):
    with open(disk, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0xff]))


def debugfs(disk, cmd, write=False):
    """Runs debugfs on the data partition of the disk image (copied out and back)."""
    off, size = partition(disk, "data")
    part = disk + ".data"
    subprocess.run(["dd", "if=" + disk, "of=" + part, "bs=1M", "skip=%d" % (off >> 20),
                    "count=%d" % (size >> 20), "status=none"], check=True)
    r = subprocess.run(["debugfs"] + (["-w"] if write else []) + ["-R", cmd, part],
                       check=True, capture_output=True, text=True)
    if write:
        subprocess.run(["dd", "if=" + part, "of=" + disk, "bs=1M", "seek=%d" % (off >> 20),
                        "conv=notrunc", "status=none"], check=True)
    os.unlink(part)
    return r.stdout.strip()


def flip_object_byte(disk, obj):
    """Flips the first byte of a store object's data, as a bad block or an attacker would."""
    block = int(debugfs(disk, "bmap %s 0" % obj))
    flip_byte(disk, partition(disk, "data")[0] + block * 4096)


def flip_content_bytes(disk, content, block_start=False):
    """Flips a byte of every copy of content on the data partition, wherever the
    filesystem put it (f2fs keeps small files inline in their inode); with
    block_start, only copies that fill a 4 KiB block from its start, zero padded."""
    off, size = partition(disk, "data")
    if block_start:
        content = content + bytes(4096 - len(content))
    with open(disk, "r+b") as f:
        f.seek(off)
        data = f.read(size)
        hits = []
        i = data.find(content)
        while i >= 0:
            if not block_start or i % 4096 == 0:
                hits.append(i)
            i = data.find(content, i + 1)
        assert hits, "no copy of %r on the data partition" % content[:32]
        for i in hits:
            f.seek(off + i + len(content.rstrip(b"\0")) // 2)
            b = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([b[0] ^ 0xff]))


def tamper_object(ctx, disk, path, verity_on):
    """Changes the store object of path as a bad block or an attacker would."""
    if ctx.board == EMMC:
        flip_object_byte(disk, object_path(ctx, path))
    else:
        with open(rootfs_file(ctx, path), "rb") as f:
            flip_content_bytes(disk, f.read(), block_start=verity_on)


def read_fails_with_eio(vm, path):
    rc, out = vm.sh("cat %s > /dev/null" % path, check=False)
    assert rc != 0 and "Input/output error" in out, (rc, out)


@scenario(EMMC, EMMC_F2FS, collapsed=(EMMC,))
def emmc_verified_store_good_path(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    system = ctx.mount_at(vm, "/run/strata/system")
    assert "verity=require" in system["options"], system
    assert "/run/strata/data/objects" in system["options"], system
    assert "metacopy=on" in system["options"], system
    fstype = "f2fs" if ctx.board == EMMC_F2FS else "ext4"
    assert ctx.mount_at(vm, "/run/strata/data")["fstype"] == fstype
    rec = ctx.boot_record(vm)
    meta = subprocess.run(["fsverity", "digest", "--compact", "--hash-alg=sha256",
                           "--block-size=4096", os.path.join(ctx.images, "meta.squashfs")],
                          check=True, capture_output=True, text=True).stdout.strip()
    assert [(v["layer"], v["device"], v["state"], v["measured"]) for v in rec["verity"]] == \
        [("meta", "/dev/vda1", "verified", meta)], rec["verity"]
    layers = {lay["role"]: lay for lay in rec["layers"]}
    assert layers["data-only"]["state"] == "verity", rec
    assert "fs-verity enabled on" in vm.out("dmesg | grep 'object store'")
    # every file of the root reads: busybox itself comes from the store
    vm.sh("md5sum /bin/busybox /etc/passwd /sbin/strata > /dev/null")
    # which: the object a metacopy file redirects to, its pinned and its measured digest
    obj = object_path(ctx, "/etc/os-release")
    digest = obj.replace("/objects/", "").replace("/", "")
    which = json.loads(vm.out("strata which --json /etc/os-release"))
    assert which["metacopy"] and which["redirect"] == obj[len("/objects"):], which
    assert which["object"] == "/run/strata/data" + obj, which
    assert which["pinned_digest"] == which["measured_digest"] == digest, which
    assert "pinned:   sha256:" + digest in vm.out("strata which /etc/os-release")
    layers = json.loads(vm.out("strata layers --json"))["layers"]
    store = [lay for lay in layers if lay["role"] == "data-only"]
    assert store and store[0]["dir"] == "/run/strata/data/objects", layers
    assert any(lay["role"] == "lower" for lay in layers), layers
    # metadata copied up into the system layer (metacopy); checked at / after the
    # reboot below: on the collapsed stack, / may keep what it looked up before
    with open(rootfs_file(ctx, "/etc/hostname")) as f:
        hostname = f.read().strip()
    vm.sh("chmod 0600 /run/strata/system/etc/hostname && sync")
    # the second boot of the same metadata image does not walk the store
    vm.poweroff()
    vm = dev.boot()
    assert "already enabled for this metadata image" in vm.out("dmesg | grep 'object store'")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    # the system layer's metacopy still reads through verity=require at /, data from the store
    assert vm.out("stat -c %a /etc/hostname") == "600"
    assert vm.out("cat /etc/hostname") == hostname
    which = json.loads(vm.out("strata which --json /etc/hostname"))
    assert which["provided_by"] == "system" and which["metacopy"], which


@scenario(EMMC, EMMC_F2FS)
def emmc_tampered_object_reads_eio(ctx):
    dev = ctx.machine()
    disk = dev.path(DISK)
    # before the first boot: the init enables fs-verity on the bad object, whose
    # digest is not the one the metadata layer pins; overlayfs refuses it at open
    tamper_object(ctx, disk, "/etc/os-release", verity_on=False)
    vm = dev.boot()
    read_fails_with_eio(vm, "/etc/os-release")
    assert "fs-verity digest" in vm.out("dmesg | grep overlayfs"), vm.out("dmesg | tail")
    assert vm.out("cat /etc/hostname")  # the rest of the root is fine
    # after it: fs-verity itself catches the change on read (Merkle tree)
    vm.poweroff()
    tamper_object(ctx, disk, "/etc/hostname", verity_on=True)
    vm = dev.boot()
    read_fails_with_eio(vm, "/etc/hostname")
    assert "FILE CORRUPTED" in vm.out("dmesg | grep fs-verity")


@scenario(EMMC)
def emmc_missing_object_is_refused(ctx):
    """The kernel (6.12) looks the object up lazily at open: ENOENT and a kmsg line."""
    dev = ctx.machine()
    disk = dev.path(DISK)
    debugfs(disk, "rm %s" % object_path(ctx, "/etc/os-release"), write=True)
    vm = dev.boot()
    rc, out = vm.sh("cat /etc/os-release", check=False)
    assert rc != 0 and "No such file or directory" in out, (rc, out)
    assert "lazy lowerdata lookup failed (etc/os-release, err=-2)" in \
        vm.out("dmesg | grep overlayfs"), vm.out("dmesg | tail")
    assert vm.out("cat /etc/hostname")


@scenario(EMMC)
def emmc_tampered_metadata_is_not_mounted(ctx):
    dev = ctx.machine()
    disk = dev.path(DISK)
    flip_byte(disk, partition(disk, "meta")[0] + 5000)
    vm = dev.boot(wait_shell=False)
    m = vm.expect(r"layer 'meta' \(/dev/vda1\) refused: "
                  r"fs-verity digest ([0-9a-f]{64}), the manifest expects ([0-9a-f]{64})", 90)
    assert m.group(1) != m.group(2)
    vm.wait_shell(60)  # the fatal policy: emergency shell
    assert "/run/strata/lower" not in vm.out("cat /proc/mounts")


@scenario(EMMC, EMMC_F2FS, collapsed=(EMMC,))
def emmc_upper_persists_and_reset_full(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo mine > /root/userfile && echo changed > /etc/os-release")
    vm.sh("echo provisioned > /run/strata/system/etc/sysfile && sync")
    vm.poweroff()
    vm = dev.boot()
    assert vm.out("cat /root/userfile") == "mine"
    assert vm.out("head -n 1 /etc/os-release") == "changed"
    assert vm.out("cat /etc/sysfile") == "provisioned"
    # revert brings back the store's version of a changed file; the rest stays
    vm.sh("strata revert -y /etc/os-release")
    vm.poweroff()
    vm = dev.boot()
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert vm.out("cat /root/userfile") == "mine"
    assert ctx.boot_record(vm)["request_applied"] == "revert"
    vm.sh("strata reset --full -y")
    vm.poweroff()
    vm = dev.boot()
    assert vm.sh("test -e /root/userfile", check=False)[0] != 0
    assert vm.sh("test -e /etc/sysfile", check=False)[0] != 0
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert ctx.boot_record(vm)["request_applied"] == "reset --full"


@scenario(EMMC)
def emmc_legacy_mount_fallback(ctx):
    """Without the new mount API the same stack is mounted with mount(2) and "::"."""
    vm = ctx.machine().boot(append="strata.mountapi=legacy")
    system = ctx.mount_at(vm, "/run/strata/system")
    assert "lowerdir=/run/strata/lower/0::/run/strata/data/objects" in system["options"], system
    assert "verity=require" in system["options"], system
    assert "no new mount API (strata.mountapi=legacy); using mount(2)" in \
        vm.out("dmesg | grep 'strata: overlay on /run/strata/system'")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    layers = json.loads(vm.out("strata layers --json"))["layers"]
    assert [lay["dir"] for lay in layers if lay["role"] == "data-only"] == \
        ["/run/strata/data/objects"], layers


@scenario(EMMC)
def emmc_store_without_data_partition_is_fatal(ctx):
    """A tmpfs upper cannot stand in for the store: the files' data would be missing."""
    vm = ctx.machine().boot(append="strata.data=nosuch", wait_shell=False)
    vm.expect(r"data partition 'nosuch' not found: no GPT partition of that name", 60)
    vm.expect(r"object store 'objects' unavailable: the data partition is not mounted", 30)
    vm.wait_shell(60)  # the fatal policy: emergency shell
    assert "/newroot" not in vm.out("cat /proc/mounts")
