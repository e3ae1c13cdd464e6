# SPDX-License-Identifier: GPL-2.0-only
"""A/B slots: the slot the bootloader started (strata.slot=) has its own lowers."""
from scenario import scenario

NOR = "qemu_x86_64_nor"
# the board's NOR region (board/qemu_x86_64_nor/qemu.sh): 32 MiB at 192 MiB
ROOT_REGION = "201326592,33554432,131072"


@scenario(NOR)
def booted_slot_finds_its_own_root_and_is_recorded(ctx):
    dev = ctx.machine()
    # slot B's root is its own partition, rootfs_b: without it the boot stops, naming it (a slot
    # that cannot boot reboots at once, for the bootloader to count the try: update.py; given
    # strata.fatal=, the board's policy, here the shell, holds)
    vm = dev.boot(append="strata.slot=B strata.rootwait=300 strata.fatal=shell")
    vm.expect(r"root partition 'rootfs_b' not found after 300 ms; MTD partitions found: "
              r"\"rootfs\", \"rootfs_data\"", from_start=True)
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "B" and rec["fatal_phase"] == "partitions", rec
    vm.kill()  # the initramfs's shell: PID 1 is still strata
    # the same image as slot B's partition (a second phram device over the region):
    # found by the slot's name, verified as the layer it is, and the boot names the slot
    vm = dev.boot(append=f"strata.slot=B phram.phram=rootfs_b,{ROOT_REGION}")
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "B" and rec["mode"] == "normal", rec
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    mtd = vm.out("cat /proc/mtd")
    n = lower["source"].removeprefix("/dev/mtdblock")
    assert f'mtd{n}: 02000000 00020000 "rootfs_b"' in mtd, (lower, mtd)
    status = vm.out("strata status")
    assert "slot:      B" in status, status
    assert "strata: booted from slot B" in vm.out("dmesg")
