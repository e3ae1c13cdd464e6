# SPDX-License-Identifier: GPL-2.0-only
"""Layers served through dm-verity (tests/variants/dmverity.sh): the init checks
the hash tree against the manifest's root hash and mounts the layer from the
kernel's verity target, which checks each block as it is read. The boards carry
the add-on layers of tests/variants/addons.sh ("extras" optional, "tools")."""
import hashlib
import os
import re

from flashimg import flip_in_static_volume, initramfs_with_manifest
from scenario import scenario

NOR = "qemu_x86_64_nor@dmverity"
NAND = "qemu_x86_64_nand@dmverity"
FEC = "qemu_x86_64_nor@fec"
BLOB = "/usr/share/dmverity/blob"


def pinned(ctx, name="rootfs"):
    """BYTES ROOT SALT of the layer, from the manifest the initramfs carries."""
    for line in open(os.path.join(ctx.images, "manifest")):
        f = line.split()
        if f[:2] == ["dm-verity", name]:
            assert ("fec=2" in f) == (ctx.board == FEC), f
            return int(f[2]), f[3], f[4]
    raise AssertionError("no dm-verity line for %s in the manifest" % name)


def entry(ctx, vm, name="rootfs"):
    """The layer's verity entry in boot.json."""
    found = [v for v in ctx.boot_record(vm)["verity"] if v["layer"] == name]
    assert len(found) == 1, ctx.boot_record(vm)["verity"]
    return found[0]


def change_byte(ctx, dev, offset):
    """Flips one bit at offset of the root layer image on the flash."""
    if ctx.board == NAND:
        flip_in_static_volume(dev.path("flash-data.bin"), 0, offset)
        return
    flash = dev.path("flash-rootfs.bin")  # a private copy, not the build's image
    data = bytearray(open(flash, "rb").read())
    os.unlink(flash)
    data[offset] ^= 0x01
    with open(flash, "wb") as f:
        f.write(data)


def blob_bytes(ctx):
    """The blob as the build put it in the root."""
    tree = os.path.join(os.path.dirname(ctx.images), "..", "trees",
                        os.path.basename(os.path.dirname(ctx.images)), "tree")
    return open(os.path.join(tree, BLOB.lstrip("/")), "rb").read()


def blob_offset(ctx):
    """Where the blob's bytes lie in the layer image (squashfs stores them as they are)."""
    img = open(os.path.join(ctx.images, "rootfs.squashfs"), "rb").read()
    blob = blob_bytes(ctx)
    at = img.find(blob[:4096])
    assert at > 0, "the blob is not stored as it is"
    return at + 100000  # inside its second squashfs block


@scenario(NOR, NAND)
def dmverity_reads_lazily_and_a_changed_block_gives_eio(ctx):
    dev = ctx.machine()
    nbytes, root, _ = pinned(ctx)
    vm = dev.boot()
    v = entry(ctx, vm)
    assert (v["state"], v["mode"], v["expected"], v["measured"], v["bytes"]) == \
        ("verified", "dm-verity", root, root, nbytes), v
    assert [(e["layer"], e["state"], e["mode"]) for e in ctx.boot_record(vm)["verity"]] == \
        [("extras", "verified", "dm-verity"), ("tools", "verified", "dm-verity"),
         ("rootfs", "verified", "dm-verity")]
    assert vm.out("cat /etc/strata-test/both") == "extras"
    assert len([m for m in ctx.mounts(vm) if m["source"].startswith("/dev/dm-")]) == 3
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    assert re.fullmatch(r"/dev/dm-\d+", lower["source"]) and lower["fstype"] == "squashfs", lower
    assert "strata: layer 'rootfs' served through dm-verity on %s: hash tree matches root %s" \
        % (lower["source"], root) in vm.out("dmesg")
    layers = vm.out("strata layers")
    assert re.search(r"lower0 .* squashfs +dm-verity", layers), layers
    vm.sh("md5sum %s > /dev/null" % BLOB)
    vm.poweroff()

    # a changed data block: the boot goes on; reading that block fails, the rest runs
    change_byte(ctx, dev, blob_offset(ctx))
    vm = dev.boot()
    assert entry(ctx, vm)["state"] == "verified"
    rc, out = vm.sh("cat %s > /dev/null" % BLOB, check=False)
    assert rc != 0 and "Input/output error" in out, (rc, out)
    assert re.search(r"device-mapper: verity: \d+:\d+: data block \d+ is corrupted",
                     vm.out("dmesg")), vm.out("dmesg | tail")
    vm.sh("cat /etc/os-release > /dev/null && ls /usr/bin > /dev/null && echo ok > /root/f")


def assert_refused(ctx, vm, root, error):
    vm.expect(r"strata: FATAL: layer 'rootfs' \([^)]*\) refused: %s \(dm-verity root %s\)"
              % (error, root), 90, from_start=True)
    assert "(strata emergency)" in vm.text
    v = entry(ctx, vm)
    assert (v["state"], v["mode"], v["error"]) == ("refused", "dm-verity", error), v
    assert not [m for m in ctx.mounts(vm) if m["fstype"] in ("squashfs", "overlay")]


@scenario(NOR, NAND)
def dmverity_changed_tree_or_wrong_root_is_refused(ctx):
    nbytes, root, _ = pinned(ctx)
    # one bit of the hash tree, right after the data
    dev = ctx.machine("tree")
    change_byte(ctx, dev, nbytes + 1000)
    assert_refused(ctx, dev.boot(), root, "hash tree does not match the root hash")
    if ctx.board == NAND:
        return
    # a manifest pinning another root
    dev = ctx.machine("root")
    wrong = "%064x" % (int(root, 16) ^ 1)
    manifest = open(os.path.join(ctx.images, "manifest")).read()
    assert manifest.count(root) == 1
    initramfs_with_manifest(ctx, dev, manifest.replace(root, wrong))
    assert_refused(ctx, dev.boot(), wrong, "hash tree does not match the root hash")


@scenario(NOR)
def dmverity_optional_addon_changed_is_dropped(ctx):
    dev = ctx.machine()
    nbytes, root, _ = pinned(ctx, "extras")
    # the add-on's NOR region: "NAME,ADDRESS,LENGTH" lines, the image at ADDRESS - 224 MiB
    part = [l.split(",") for l in open(dev.path("flash-addons.phram")).read().splitlines()
            if l.startswith("extras,")][0]
    path = dev.path("flash-addons.bin")
    data = bytearray(open(path, "rb").read())
    # a one-block layer: no tree, the root hashes that block, checked at setup
    assert nbytes == 4096, nbytes
    data[int(part[1]) - 0xe000000 + 100] ^= 0x01
    os.unlink(path)
    open(path, "wb").write(data)
    vm = dev.boot()
    assert re.search(r"strata: layer 'extras' \(/dev/mtdblock\d\) refused: hash tree does not "
                     r"match the root hash \(dm-verity root %s\); it is optional: booting "
                     r"without it" % root, vm.out("dmesg")), vm.out("dmesg | grep strata")
    assert vm.out("cat /etc/strata-test/both") == "tools"
    assert (entry(ctx, vm, "extras")["state"], entry(ctx, vm, "tools")["state"]) == \
        ("refused", "verified")


def tree_blocks(data_blocks):
    """Blocks of dm-verity's tree (128 hashes a block; none for one data block)."""
    total, n = 0, data_blocks
    while n > 1:
        n = (n + 127) // 128
        total += n
    return total


@scenario(FEC)
def dmverity_fec_corrects_flipped_bits(ctx):
    nbytes, root, _ = pinned(ctx)
    # a flipped bit in a data block and one in the hash tree: corrected, checked, served
    dev = ctx.machine("fix")
    at = blob_offset(ctx)
    change_byte(ctx, dev, at)
    change_byte(ctx, dev, nbytes + 1000)
    vm = dev.boot(append="strata.debug")
    v = entry(ctx, vm)
    assert (v["state"], v["mode"], v["measured"]) == ("verified", "dm-verity", root), v
    # the tables the init gave the kernel (strata.debug logs them): parity from the block
    # after the tree, covering data and tree; first for the init's re-check of the
    # tree, then to serve the layer
    covered = nbytes // 4096 + tree_blocks(nbytes // 4096)
    tables = re.findall(r"strata: dm-verity 'rootfs' on /dev/dm-\d+: 1 (\d+:\d+) \1 4096 4096 "
                        r"%d %d sha256 %s \w{64} 8 use_fec_from_device \1 fec_start %d "
                        r"fec_blocks %d fec_roots 2\r?$"
                        % (nbytes // 4096, nbytes // 4096, root, covered, covered),
                        vm.out("dmesg"), re.M)
    assert len(tables) == 2, vm.out("dmesg | grep 'strata: dm-verity'")
    dmesg = vm.out("dmesg")
    assert "strata: layer 'rootfs' (/dev/mtdblock0): its hash tree on the flash has changed " \
        "bits; dm-verity's forward error correction corrected them and the kernel checked " \
        "the result against root %s" % root in dmesg, dmesg
    # the flash really holds the flipped bit; the file reads back as the build made it
    raw = vm.out("dd if=/dev/mtdblock0 bs=1 skip=%d count=1 2>/dev/null | od -An -tu1" % at)
    image = open(os.path.join(ctx.images, "rootfs.squashfs"), "rb").read()
    assert int(raw) == image[at] ^ 0x01, (raw, image[at])
    assert vm.out("md5sum %s" % BLOB).split()[0] == hashlib.md5(blob_bytes(ctx)).hexdigest()
    # the kernel logs the tree block as corrupted on its way to the correction (its
    # "corrected" lines are rate-limited after those), never a data block
    dmesg = vm.out("dmesg")
    assert not re.search(r"verity: \d+:\d+: data block \d+ is corrupted", dmesg), dmesg
    vm.poweroff()

    # the tree changed and the parity after it gone (erased): refused, nothing mounted
    dev = ctx.machine("beyond")
    change_byte(ctx, dev, nbytes + 1000)
    flash = dev.path("flash-rootfs.bin")
    data = bytearray(open(flash, "rb").read())
    size = os.path.getsize(os.path.join(ctx.images, "rootfs.squashfs"))
    parity = nbytes + tree_blocks(nbytes // 4096) * 4096
    assert 0 < size - parity <= 64 * 4096, (size, parity)
    data[parity:size] = b"\xff" * (size - parity)
    os.unlink(flash)
    open(flash, "wb").write(data)
    assert_refused(ctx, dev.boot(), root,
                   "hash tree does not match the root hash, even corrected by FEC")
