# SPDX-License-Identifier: GPL-2.0-only
"""Squashfs layers on raw NOR (phram) and UBI volumes measured against the
manifest in the initramfs: the good path, a tampered volume, a manifest that
matches nothing, a layer the manifest does not list, and one it lists that the
board does not have."""
import json
import os
import re
import subprocess

from flashimg import flip_in_static_volume, initramfs_with_manifest
from scenario import scenario

NOR = "qemu_x86_64_nor"
NAND = "qemu_x86_64_nand"
ARM64 = "qemu_aarch64_virt"


def fsverity_digest(path):
    out = subprocess.check_output(["fsverity", "digest", "--compact", path], text=True)
    return out.strip()


def prefix_digest(ctx, path, nbytes):
    """The fs-verity digest of the first nbytes of path, as `fsverity digest` computes it."""
    tmp = os.path.join(ctx.workdir, "prefix.img")
    with open(path, "rb") as f, open(tmp, "wb") as g:
        g.write(f.read(nbytes))
    return fsverity_digest(tmp)


def squashfs(ctx):
    return os.path.join(ctx.images, "rootfs.squashfs")


def assert_verified(ctx, vm):
    img = squashfs(ctx)
    rec = ctx.boot_record(vm)
    # the device that was measured is the one mounted
    device = ctx.mount_at(vm, "/run/strata/lower/0")["source"]
    want = fsverity_digest(img)
    assert rec["verity"] == [{"layer": "rootfs", "device": device,
                              "bytes": os.path.getsize(img), "expected": want,
                              "measured": want, "state": "verified", "mode": "digest", "error": "",
                              "optional": False, "ns": rec["verity"][0]["ns"]}], rec["verity"]
    phase = [p for p in rec["phases"] if p["name"] == "verity"]
    assert len(phase) == 1 and phase[0]["end_ns"] > phase[0]["start_ns"], rec["phases"]
    assert rec["mode"] == "normal", rec
    assert "strata: layer 'rootfs' verified: fs-verity digest %s" % want in vm.out("dmesg")


@scenario(NOR)
def verity_nor_layer_verified(ctx):
    assert_verified(ctx, ctx.machine().boot())


@scenario(NAND)
def verity_nand_layer_verified(ctx):
    assert_verified(ctx, ctx.machine().boot())


# phram and block2mtd load in parallel: the NOR rootfs is mtd0 or mtd2
NOR_DEV, NAND_DEV = r"/dev/mtdblock\d", r"/dev/ubiblock0_0"


def assert_refused(vm, device, expected, measured):
    """One message names the layer and both digests."""
    vm.expect(r"strata: FATAL: layer 'rootfs' \(%s\) refused: fs-verity digest %s, "
              r"the manifest expects %s" % (device, measured, expected), 90, from_start=True)


def record_of_refusal(ctx, vm, device, expected, measured, error):
    """boot.json says so, and nothing of the layer was mounted."""
    rec = ctx.boot_record(vm)
    v = rec["verity"]
    assert len(v) == 1 and v[0]["layer"] == "rootfs" and re.fullmatch(device, v[0]["device"]), v
    assert (v[0]["state"], v[0]["expected"], v[0]["measured"], v[0]["error"]) == \
        ("refused", expected, measured, error), v
    # the layer was never mounted: no squashfs anywhere
    assert not [m for m in ctx.mounts(vm) if m["fstype"] in ("squashfs", "overlay")], \
        ctx.mounts(vm)
    dmesg = vm.out("dmesg")
    assert dmesg.count("refused") == 1, dmesg


@scenario(NOR, ARM64)
def verity_nor_flipped_byte_is_refused(ctx):
    dev = ctx.machine()
    img = squashfs(ctx)
    size = os.path.getsize(img)
    # the NOR image QEMU loads: a private, tampered copy of it
    flash = dev.path("flash-rootfs.bin")
    data = bytearray(open(flash, "rb").read())
    os.unlink(flash)
    data[size // 2] ^= 0x01
    with open(flash, "wb") as f:
        f.write(data)
    expected = fsverity_digest(img)
    measured = prefix_digest(ctx, flash, size)
    assert measured != expected
    # default policy: the emergency shell, strata still PID 1
    vm = dev.boot()
    assert_refused(vm, NOR_DEV, expected, measured)
    assert "(strata emergency)" in vm.text
    record_of_refusal(ctx, vm, NOR_DEV, expected, measured, "digest mismatch")


@scenario(NAND)
def verity_nand_flipped_byte_is_refused_and_reboots(ctx):
    dev = ctx.machine()
    img = squashfs(ctx)
    size = os.path.getsize(img)
    at = size // 2
    flip_in_static_volume(dev.path("flash-data.bin"), 0, at)
    expected = fsverity_digest(img)
    tampered = os.path.join(ctx.workdir, "tampered.squashfs")
    data = bytearray(open(img, "rb").read())
    data[at] ^= 0x01
    open(tampered, "wb").write(data)
    measured = fsverity_digest(tampered)
    vm = dev.boot(append="strata.fatal=reboot", wait_shell=False)
    assert_refused(vm, NAND_DEV, expected, measured)
    vm.expect(r"rebooting in \d+ s", 30)
    vm.wait_exit(60)  # -no-reboot: the reboot ends QEMU
    assert "(strata emergency)" not in vm.text and "exec /sbin/init" not in vm.text
    assert vm.text.count("refused") == 1, vm.text


@scenario(NOR)
def verity_manifest_matching_nothing_is_refused_and_hangs(ctx):
    dev = ctx.machine()
    img = squashfs(ctx)
    size = os.path.getsize(img)
    # a well-formed manifest whose digest is that of no image of this board
    wrong = fsverity_digest(os.path.join(ctx.images, "kernel"))
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\nlayer rootfs %d %s\n" % (size, wrong))
    vm = dev.boot(append="strata.fatal=hang", wait_shell=False)
    measured = fsverity_digest(img)
    assert_refused(vm, NOR_DEV, wrong, measured)
    vm.expect(r"system halted; power-cycle the device", 30)
    vm.kill()
    assert "(strata emergency)" not in vm.text and "exec /sbin/init" not in vm.text


@scenario(NOR)
def verity_unlisted_and_missing_layers_are_refused(ctx):
    dev = ctx.machine()
    img = squashfs(ctx)
    good = "layer rootfs %d %s\n" % (os.path.getsize(img), fsverity_digest(img))
    # the board's layer is not in the manifest
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\n" + good.replace("rootfs", "rootfs2"))
    vm = dev.boot()
    vm.expect(r"FATAL: layer 'rootfs' \(%s\) is not in the manifest /etc/strata/manifest"
              % NOR_DEV, 60, from_start=True)
    v = ctx.boot_record(vm)["verity"]
    assert [(x["layer"], x["state"], x["error"], x["measured"]) for x in v] == \
        [("rootfs", "refused", "not in the manifest", "")], v
    assert not [m for m in ctx.mounts(vm) if m["fstype"] == "squashfs"]
    # the manifest names a layer the board does not have
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\n" + good +
                            good.replace("rootfs", "rootfs_extra"))
    vm = dev.boot()
    vm.expect(re.escape("FATAL: the manifest /etc/strata/manifest lists layer 'rootfs_extra', "
                        "which this board does not have"), 60, from_start=True)
    assert not [m for m in ctx.mounts(vm) if m["fstype"] == "squashfs"]
    # ... unless it is optional: a warning, and the boot goes on
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\n" + good +
                            good.replace("rootfs", "rootfs_extra").strip() + " optional\n")
    vm = dev.boot()
    assert ctx.boot_record(vm)["mode"] == "normal"
    assert "the manifest lists the optional layer 'rootfs_extra', which this board does not " \
        "have" in vm.out("dmesg")
    # a malformed manifest: nothing can be verified, nothing is mounted
    initramfs_with_manifest(ctx, dev, "strata-manifest 1\nlayer rootfs 12 nothex\n")
    vm = dev.boot()
    vm.expect(re.escape("FATAL: layer manifest /etc/strata/manifest: line 2: bad digest of layer "
                        "'rootfs'"), 60, from_start=True)
    assert not [m for m in ctx.mounts(vm) if m["fstype"] == "squashfs"]


# Add-on layers (tests/variants/addons.sh): "extras" (optional, on top), "tools", the root.
NOR_ADDONS, NAND_ADDONS = NOR + "@addons", NAND + "@addons"
ADDON_LAYERS = (("extras", "addon-extras.squashfs", True), ("tools", "addon-tools.squashfs", False),
                ("rootfs", "rootfs.squashfs", False))


def assert_all_verified(ctx, vm):
    got = [(v["layer"], v["state"], v["optional"], v["bytes"], v["measured"], v["expected"])
           for v in ctx.boot_record(vm)["verity"]]
    want = []
    for name, img, optional in ADDON_LAYERS:
        path = os.path.join(ctx.images, img)
        d = fsverity_digest(path)
        want.append((name, "verified", optional, os.path.getsize(path), d, d))
    assert got == want, got
    # strata layers shows each lower's check, by the lower's name
    layers = json.loads(vm.out("strata layers --json"))["layers"]
    got = [(l["name"], l["state"], l["verity"]) for l in layers if l["role"] == "lower"]
    assert got == [(name, "verified", {"state": "verified", "mode": "digest", "expected": d,
                                       "measured": d})
                   for name, _, _, _, d, _ in want], got
    assert "verified" in vm.out("strata layers | grep '^lower1 '")


@scenario(NOR_ADDONS)
def verity_nor_addons_verified(ctx):
    assert_all_verified(ctx, ctx.machine().boot())


@scenario(NAND_ADDONS)
def verity_nand_addons_verified(ctx):
    assert_all_verified(ctx, ctx.machine().boot())


def flip_addon(ctx, dev, name):
    """Flips a byte in the middle of add-on NAME's image in the device's add-on NOR."""
    size = os.path.getsize(os.path.join(ctx.images, "addon-%s.squashfs" % name))
    path = dev.path("flash-addons.bin")
    data = bytearray(open(path, "rb").read())
    for line in open(dev.path("flash-addons.phram")).read().splitlines():
        part = line.split(",")
        if part[0] == name:
            data[int(part[1]) - 0xe000000 + size // 2] ^= 0x40
            break
    else:
        raise AssertionError("no add-on partition " + name)
    os.unlink(path)
    open(path, "wb").write(data)


@scenario(NOR_ADDONS)
def verity_tampered_addon_optional_dropped_required_fatal(ctx):
    dev = ctx.machine()
    flip_addon(ctx, dev, "extras")
    vm = dev.boot()
    v = {x["layer"]: x for x in ctx.boot_record(vm)["verity"]}
    extras = v["extras"]
    assert (extras["state"], extras["error"], extras["optional"]) == \
        ("refused", "digest mismatch", True), extras
    assert extras["expected"] == fsverity_digest(os.path.join(ctx.images,
                                                              "addon-extras.squashfs"))
    assert extras["measured"] != extras["expected"] and len(extras["measured"]) == 64
    assert (v["tools"]["state"], v["rootfs"]["state"]) == ("verified", "verified"), v
    assert "strata: layer 'extras' (%s) refused: fs-verity digest %s, the manifest expects %s; " \
        "it is optional: booting without it" % (extras["device"], extras["measured"],
                                                extras["expected"]) in vm.out("dmesg")
    # booted without it: never mounted, the layer below shows
    assert vm.out("cat /etc/strata-test/both") == "tools"
    assert len([m for m in ctx.mounts(vm) if m["fstype"] == "squashfs"]) == 2
    assert ctx.boot_record(vm)["mode"] == "normal"
    vm.poweroff()
    # a required add-on is not dropped: the fatal policy
    dev = ctx.machine("dev2")
    flip_addon(ctx, dev, "tools")
    vm = dev.boot()
    vm.expect(r"strata: FATAL: layer 'tools' \(/dev/mtdblock\d\) refused: fs-verity digest "
              r"[0-9a-f]{64}, the manifest expects %s"
              % fsverity_digest(os.path.join(ctx.images, "addon-tools.squashfs")), 60,
              from_start=True)
    assert "(strata emergency)" in vm.text
    assert not [m for m in ctx.mounts(vm) if m["fstype"] in ("squashfs", "overlay")]
