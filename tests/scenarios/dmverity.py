# SPDX-License-Identifier: GPL-2.0-only
"""Layers served through dm-verity (tests/variants/dmverity.sh): the init checks
the hash tree against the manifest's root hash and mounts the layer from the
kernel's verity target, which checks each block as it is read."""
import os
import re

from flashimg import flip_in_static_volume, initramfs_with_manifest
from scenario import scenario

NOR = "qemu_x86_64_nor@dmverity"
NAND = "qemu_x86_64_nand@dmverity"
BLOB = "/usr/share/dmverity/blob"


def pinned(ctx, name="rootfs"):
    """BYTES ROOT SALT of the layer, from the manifest the initramfs carries."""
    for line in open(os.path.join(ctx.images, "manifest")):
        f = line.split()
        if f[:2] == ["dm-verity", name]:
            return int(f[2]), f[3], f[4]
    raise AssertionError("no dm-verity line for %s in the manifest" % name)


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


def blob_offset(ctx):
    """Where the blob's bytes lie in the layer image (squashfs stores them as they are)."""
    img = open(os.path.join(ctx.images, "rootfs.squashfs"), "rb").read()
    tree = os.path.join(os.path.dirname(ctx.images), "..", "trees",
                        os.path.basename(os.path.dirname(ctx.images)), "tree")
    blob = open(os.path.join(tree, BLOB.lstrip("/")), "rb").read()
    at = img.find(blob[:4096])
    assert at > 0, "the blob is not stored as it is"
    return at + 100000  # inside its second squashfs block


@scenario(NOR, NAND)
def dmverity_reads_lazily_and_a_changed_block_gives_eio(ctx):
    dev = ctx.machine()
    nbytes, root, _ = pinned(ctx)
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    v = rec["verity"][-1]
    assert (v["layer"], v["state"], v["mode"], v["expected"], v["measured"], v["bytes"]) == \
        ("rootfs", "verified", "dm-verity", root, root, nbytes), v
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
    assert ctx.boot_record(vm)["verity"][-1]["state"] == "verified"
    rc, out = vm.sh("cat %s > /dev/null" % BLOB, check=False)
    assert rc != 0 and "Input/output error" in out, (rc, out)
    assert re.search(r"device-mapper: verity: \d+:\d+: data block \d+ is corrupted",
                     vm.out("dmesg")), vm.out("dmesg | tail")
    vm.sh("cat /etc/os-release > /dev/null && ls /usr/bin > /dev/null && echo ok > /root/f")


def assert_refused(ctx, vm, root, error):
    vm.expect(r"strata: FATAL: layer 'rootfs' \([^)]*\) refused: %s \(dm-verity root %s\)"
              % (error, root), 90, from_start=True)
    assert "(strata emergency)" in vm.text
    v = ctx.boot_record(vm)["verity"][-1]
    assert (v["state"], v["mode"], v["error"]) == ("refused", "dm-verity", error), v
    assert not [m for m in ctx.mounts(vm) if m["fstype"] in ("squashfs", "overlay")]


@scenario(NOR, NAND)
def dmverity_changed_tree_or_wrong_root_is_refused(ctx):
    nbytes, root, salt = pinned(ctx)
    # one bit of the hash tree, right after the data
    dev = ctx.machine("tree")
    change_byte(ctx, dev, nbytes + 1000)
    assert_refused(ctx, dev.boot(), root, "hash tree does not match the root hash")
    if ctx.board == NAND:
        return
    # a manifest pinning another root
    dev = ctx.machine("root")
    wrong = "%064x" % (int(root, 16) ^ 1)
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\ndm-verity rootfs %d %s %s\n"
                            % (nbytes, wrong, salt))
    assert_refused(ctx, dev.boot(), wrong, "hash tree does not match the root hash")
