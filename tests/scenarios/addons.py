# SPDX-License-Identifier: GPL-2.0-only
"""Add-on lower layers (ADDONS=): order, provenance, optional and missing layers.
The boards are built by tests/variants/addons.sh: "extras" (a directory,
optional, on top), "tools" (a tarball), then the base root."""
import json
import os
import re

from flashimg import initramfs_with
from scenario import scenario

NOR = "qemu_x86_64_nor@addons"
NAND = "qemu_x86_64_nand@addons"


@scenario(NOR)
def addons_stack_in_order_with_provenance_nor(ctx):
    dev = ctx.machine()
    _stack_and_reset(ctx, dev)


@scenario(NAND)
def addons_stack_in_order_with_provenance_nand(ctx):
    dev = ctx.machine()
    _stack_and_reset(ctx, dev)


def _stack_and_reset(ctx, dev):
    vm = dev.boot()
    assert vm.out("cat /etc/strata-test/both") == "extras"
    assert vm.out("cat /etc/strata-test/only-tools") == "tools"
    assert vm.out("tools-hello") == "hello from the tools layer"
    assert "VARIANT_ID=addons" in vm.out("cat /etc/os-release")
    rec = ctx.boot_record(vm)
    lowers = [(l["name"], l["mountpoint"]) for l in rec["layers"] if l["role"] == "lower"]
    assert lowers == [("extras", "/run/strata/lower/1"), ("tools", "/run/strata/lower/2"),
                      ("rootfs", "/run/strata/lower/0")], lowers
    system = ctx.mount_at(vm, "/run/strata/system")
    # top first: "lowerdir=A:B:C" with mount(2), one "lowerdir+=" each with the new mount API
    assert "lowerdir=/run/strata/lower/1:/run/strata/lower/2:/run/strata/lower/0" in \
        system["options"] or "lowerdir+=/run/strata/lower/1,lowerdir+=/run/strata/lower/2," \
        "lowerdir+=/run/strata/lower/0," in system["options"], system
    # provenance: a file only in the second lower, one shadowed, one in the base
    which = json.loads(vm.out("strata which --json /etc/strata-test/only-tools"))
    assert (which["provided_by"], which["lower"], which["layer_name"], which["state"]) == \
        ("lower", 1, "tools", "only"), which
    which = json.loads(vm.out("strata which --json /etc/strata-test/both"))
    assert (which["lower"], which["layer_name"], which["state"]) == (0, "extras", "copy-up"), \
        which
    which = json.loads(vm.out("strata which --json /etc/inittab"))
    assert (which["lower"], which["layer_name"]) == (2, "rootfs"), which
    assert "from the lower 1 'tools' layer" in vm.out("strata which /etc/strata-test/only-tools")
    layers = json.loads(vm.out("strata layers --json"))["layers"]
    assert [(l["layer"], l["name"]) for l in layers if l["role"] == "lower"] == \
        [("lower0", "extras"), ("lower1", "tools"), ("lower2", "rootfs")], layers
    # the user changes a file of an add-on; a user reset shows the add-on's again
    vm.sh("echo mine > /etc/strata-test/only-tools && sync")
    assert json.loads(vm.out("strata which --json /etc/strata-test/only-tools"))["state"] == \
        "copy-up"
    vm.sh("strata reset --user -y")
    vm.poweroff()
    vm = dev.boot()
    assert vm.out("cat /etc/strata-test/only-tools") == "tools"
    assert ctx.boot_record(vm)["request_applied"] == "reset --user"


def _without(ctx, dev, name):
    """The device without the add-on partition NAME (as if never flashed): the
    init's module list, which declares the NOR partitions to phram, without it."""
    build = os.path.join(os.path.dirname(ctx.images), "build")
    mods = open(os.path.join(build, "initramfs", "modules.list")).read()
    mods, n = re.subn(r" phram=%s,\S+" % re.escape(name), "", mods)
    assert n == 1, mods
    initramfs_with(ctx, dev, "/etc/strata/modules", mods)


@scenario(NOR)
def optional_addon_missing_boots_without_it(ctx):
    dev = ctx.machine()
    _without(ctx, dev, "extras")
    vm = dev.boot()
    assert "strata: optional add-on layer 'extras' not found; MTD partitions found: " \
        "\"rootfs\", \"tools\"" in vm.out("dmesg"), vm.out("dmesg | grep strata")
    assert vm.out("cat /etc/strata-test/both") == "tools"
    assert vm.sh("test -e /etc/strata-test/only-extras", check=False)[0] == 1
    names = [l["name"] for l in ctx.boot_record(vm)["layers"] if l["role"] == "lower"]
    assert names == ["tools", "rootfs"], names


@scenario(NOR)
def required_addon_missing_is_fatal_naming_it(ctx):
    dev = ctx.machine()
    _without(ctx, dev, "tools")
    vm = dev.boot(wait_shell=False)
    vm.expect(r"FATAL: add-on layer 'tools' not found; MTD partitions found: \"rootfs\", "
              r"\"extras\"", 90)
    vm.wait_shell()
    assert vm.out("cat /proc/1/comm") == "init"  # the emergency shell under strata


@scenario(NOR)
def unmountable_optional_addon_is_left_out(ctx):
    dev = ctx.machine()
    # the optional layer's flash holds no squashfs (erased)
    path = dev.path("flash-addons.bin")
    data = bytearray(open(path, "rb").read())
    part = open(dev.path("flash-addons.phram")).read().splitlines()[0].split(",")
    assert part[0] == "extras"
    off, length = int(part[1]) - 0xe000000, int(part[2])
    data[off:off + length] = b"\xff" * length
    os.unlink(path)
    open(path, "wb").write(data)
    vm = dev.boot()
    # with CONFIG_STRATA_VERITY (every shipped board) the measurement refuses it before the
    # mount is tried
    assert re.search(r"strata: layer 'extras' \(/dev/mtdblock1\) refused: fs-verity digest "
                     r"[0-9a-f]{64}, the manifest expects [0-9a-f]{64}; it is optional: "
                     r"booting without it", vm.out("dmesg")), vm.out("dmesg | grep strata")
    assert vm.out("cat /etc/strata-test/both") == "tools"
