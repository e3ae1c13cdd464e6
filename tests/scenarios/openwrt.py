# SPDX-License-Identifier: GPL-2.0-only
"""A real OpenWrt userland (18.06.4: procd, preinit, uci, opkg, LuCI) on strata, with
fstools' commands replaced: OpenWrt's layout and its own flows (tests/variants/openwrt.sh)."""
from scenario import scenario

NOR = "qemu_x86_64_nor@openwrt"
NAND = "qemu_x86_64_nand@openwrt"


def boot_openwrt(dev, append=""):
    """Boots into procd and activates OpenWrt's console (askfirst)."""
    vm = dev.boot(append=append, wait_shell=False, timeout=180)
    vm.expect(r"Please press Enter to activate this console", 180)
    vm.send("\n")
    vm.wait_shell(60)
    return vm


@scenario(NOR, NAND)
def openwrt_boots_with_fstools_layout(ctx):
    dev = ctx.machine()
    vm = boot_openwrt(dev)
    assert vm.out("cat /proc/1/comm") == "procd"
    root = ctx.mount_at(vm, "/")
    assert (root["source"], root["fstype"]) == ("overlayfs:/overlay", "overlay"), root
    flash = "ubifs" if ctx.board == NAND else "jffs2"
    assert ctx.mount_at(vm, "/overlay")["fstype"] == flash
    assert ctx.mount_at(vm, "/rom")["fstype"] == "squashfs"
    assert sorted(vm.out("ls -A /overlay | cat").split()) == ["upper", "work"]  # no colours
    for name in ("mount_root", "jffs2reset", "jffs2mark", "firstboot", "factoryreset"):
        assert vm.out("readlink /sbin/" + name) == "strata", name
    # preinit ran mount_root; it left the assembled root alone
    assert "mount_root: the root is assembled" in vm.text
    vm.sh("mount_root done")
