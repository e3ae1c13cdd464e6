# SPDX-License-Identifier: GPL-2.0-only
"""The NAND/UBI board: squashfs through ubiblock, ubifs upper created on first boot."""
from scenario import scenario

NAND = "qemu_x86_64_nand"


@scenario(NAND)
def nand_first_boot_creates_data_volume(ctx):
    vm = ctx.machine().boot()
    dmesg = vm.out("dmesg")
    assert "strata: first boot: created UBI volume 'rootfs_data' (ubi0_1," in dmesg, dmesg
    rec = ctx.boot_record(vm)
    assert rec["first_boot"] is True and rec["mode"] == "normal", rec
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    assert (lower["fstype"], lower["source"]) == ("squashfs", "/dev/ubiblock0_0"), lower
    data = ctx.mount_at(vm, "/run/strata/data")
    assert (data["fstype"], data["source"]) == ("ubifs", "ubi0:rootfs_data"), data
    assert ctx.mount_at(vm, "/")["fstype"] == "overlay"
    assert vm.out("cat /sys/class/ubi/ubi0_1/name") == "rootfs_data"
    # ubifs has what overlayfs wants from an upper
    assert rec["capabilities"] == {"rename_whiteout": True, "rename_exchange": True}, rec


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
    assert vm.out("ls /sys/class/ubi/ | grep -c '^ubi0_'") == "2"


@scenario(NAND)
def nand_missing_root_volume_lists_volumes(ctx):
    vm = ctx.machine().boot(append="strata.root=nosuch strata.rootwait=200")
    vm.expect(r"root volume 'nosuch' not found on ubi0 after 200 ms; volumes found: "
              r"\"rootfs\"", from_start=True)
