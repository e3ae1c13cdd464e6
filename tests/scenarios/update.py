# SPDX-License-Identifier: GPL-2.0-only
"""Firmware updates end to end on qemu_x86_64_nor, through Debian's GRUB
(board/qemu_x86_64_nor/grub.cfg, tools/grubdisk.sh): the boot disk holds the
counters, each slot's kernel and initramfs, and each slot's root layer
(block2mtd over its partition). Every power-on is one QEMU run: GRUB takes a
slot and spends its try, the slot boots (or not), and the next power-on
shows what the counters then chose. The first update is the build's own
images/update.bundle, checked by the root's own /etc/strata (update.conf,
keys, version); the second is signed with the build's key on the host. Both
reach the device on a disk of their own, read through a pipe.

One CPU: with two, the kernel (6.12) deadlocks when two threads read an
mtdblock over block2mtd at once (mtdblock's request runs block2mtd's read of
the disk's page cache inside the reader's plugged submission), which the
layers' hashing does; real NOR flash has no block2mtd under it."""
import json
import os
import re
import shutil
import subprocess
import time

from scenario import scenario
from vm import VM

NOR = "qemu_x86_64_nor"
TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# the board's command line (board/qemu_x86_64_nor/qemu.sh) with the slots' roots on the boot disk
# (the third virtio disk, after rootfs_data's and strata_log's): partitions 4 and 5
BOOTARGS = ("console=ttyS0 panic=-1 memmap=32M$0xc000000 "
            "block2mtd.block2mtd=/dev/vdc4,131072,rootfs_a "
            "block2mtd.block2mtd=/dev/vdc5,131072,rootfs_b")
def missing_tools():
    for tool in ("grub-mkimage", "grub-editenv", "mke2fs", "sfdisk", "signify-openbsd"):
        if not shutil.which(tool):
            return "%s not installed (grub-pc-bin, grub-common, e2fsprogs, fdisk, " \
                   "signify-openbsd: make deps)" % tool
    if not os.path.exists("/usr/lib/grub/i386-pc/lnxboot.img"):
        return "/usr/lib/grub/i386-pc/lnxboot.img not installed (grub-pc-bin: make deps)"
    return None


def run(*cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def boot_image(work, name, kernel, initramfs):
    """A slot's boot partition as an image: ext2 holding /kernel and /initramfs."""
    tree = os.path.join(work, name + ".d")
    os.makedirs(tree)
    shutil.copyfile(kernel, os.path.join(tree, "kernel"))
    shutil.copyfile(initramfs, os.path.join(tree, "initramfs"))
    kib = (os.path.getsize(kernel) + os.path.getsize(initramfs)) // 1024 * 11 // 10 + 1024
    img = os.path.join(work, name + ".ext2")
    run("mke2fs", "-q", "-t", "ext2", "-b", "1024", "-d", tree, img, str(kib),
        env=dict(os.environ, E2FSPROGS_FAKE_TIME="0"))
    return img


class GrubDevice:
    """The NOR board booted by GRUB from its boot disk, A/B slots on it."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.dev = ctx.machine()
        self.dir = self.dev.dir
        img = ctx.images
        # the build's signing key (its development key: the build makes one in O/dev-key)
        self.key = os.path.join(img, "..", "dev-key", "strata.sec")
        run(os.path.join(TOP, "tools/grubdisk.sh"), self.path("disk.img"), self.path("grub.lnx"),
            os.path.join(TOP, "board", NOR),
            "kernel_a=" + os.path.join(img, "kernel"),
            "initramfs_a=" + os.path.join(img, "initramfs.cpio"),
            "rootfs_a=" + os.path.join(img, "rootfs.squashfs"),
            "bootargs=" + BOOTARGS)
        self.bundles = []  # (offset, size) on the bundle disk
        self.power_ons = 0

    def path(self, name):
        return os.path.join(self.dir, name)

    def sign(self, version, boot, rootfs=None):
        """A bundle of a boot image and this build's root (or another), signed with the build's
        key."""
        out = os.path.join(self.ctx.workdir, "v%s.bundle" % version)
        rootfs = rootfs or os.path.join(self.ctx.images, "rootfs.squashfs")
        run(os.path.join(TOP, "tools/mkbundle.sh"), "-k", self.key, "-c", NOR, "-v", str(version),
            "-o", out, "boot=" + boot, "rootfs=" + rootfs)
        return out

    def put(self, bundle):
        """Puts a bundle on the bundle disk (at a 1 MiB boundary); its offset and size there."""
        offset = sum((s + (1 << 20) - 1) >> 20 << 20 for _, s in self.bundles)
        size = os.path.getsize(bundle)
        with open(self.path("bundles.img"), "ab") as disk, open(bundle, "rb") as b:
            disk.truncate(offset)
            disk.seek(offset)
            shutil.copyfileobj(b, disk)
            disk.truncate((offset + size + (1 << 20) - 1) >> 20 << 20)
        self.bundles.append((offset, size))
        return offset, size

    def script(self):
        """The power-on: GRUB as the kernel QEMU starts, the boot disk first in the BIOS's order."""
        path = self.path("grub-qemu.sh")
        d = self.dir
        # every disk a virtio-blk device of its own, in this order (vda, vdb, vdc, vdd)
        disks = ["flash-data.bin", "flash-log.bin", "disk.img"]
        if os.path.exists(self.path("bundles.img")):
            disks.append("bundles.img")
        drives = []
        for i, name in enumerate(disks):
            drives += ["-drive", "file=%s/%s,if=none,id=d%d,format=raw" % (d, name, i),
                       "-device", "virtio-blk-pci,drive=d%d,addr=%d%s"
                       % (i, 4 + i, ",bootindex=1" if name == "disk.img" else "")]
        with open(path, "w") as f:
            f.write("#!/bin/bash\nexec qemu-system-x86_64 -M pc -smp 1 -m 256 -nographic "
                    "-no-user-config -nic none -accel tcg -kernel %s/grub.lnx %s \"$@\"\n"
                    % (d, " ".join("'%s'" % a for a in drives)))
        os.chmod(path, 0o755)
        return path

    def power_on(self, shell=True):
        """One power-on; with shell, until the booted system's shell answers."""
        self.dev.stop()
        self.power_ons += 1
        log = os.path.join(self.ctx.workdir, "power-on-%d.log" % self.power_ons)
        vm = VM(self.script(), log)
        self.dev.vm = vm
        vm.expect(r"strata-boot: slot ([AB]) \((\d) tries left", 120)
        if shell:
            vm.wait_shell(180)
        return vm

    def fails(self, slot, said):
        """A power-on that takes slot and ends, the console having said said: the board resets
        (QEMU, -no-reboot, exits) without a shell."""
        vm = self.power_on(shell=False)
        assert self.slot_said(vm) == slot, vm.text[-2000:]
        vm.expect(said, 120)
        assert vm.wait_exit(60) == 0
        assert "emergency shell" not in vm.text
        return vm

    def slot_said(self, vm):
        return re.search(rb"strata-boot: slot ([AB]) \((\d) tries left", vm.buf).group(1).decode()

    @staticmethod
    def marked_good(vm, slot, tries=3):
        """The booted slot, kept by the init's own strata update mark-good (inittab: once rcS,
        which mounts the boot partition, has run); the counters then."""
        for _ in range(60):
            st = update_status(vm)
            if st["slots"][slot]["left"] == tries:
                return st
            time.sleep(0.5)
        raise AssertionError("slot %s was not marked good at boot: %s" % (slot, st))

    def install(self, vm, offset, size, expect_rc=0, args=""):
        # from the bundle disk through a pipe: the stream a download would be
        rc, out = vm.sh("dd if=/dev/vdd bs=1M skip=%d status=none | head -c %d | "
                        "strata update install %s -" % (offset >> 20, size, args), timeout=300,
                        check=False)
        assert rc == expect_rc, (rc, out)
        return out

    ONCE = "--allow-downgrade --config /tmp/once.conf"

    def install_once(self, vm, offset, size):
        """An older bundle, given one try: update.conf with 'tries 1', for this install alone."""
        vm.sh("sed '/^tries /d; $a tries 1' /etc/strata/update.conf > /tmp/once.conf")
        out = self.install(vm, offset, size, args=self.ONCE)
        assert "slot A boots next with 1 tries" in out, out


def update_status(vm):
    return json.loads(vm.out("strata update status --json"))


@scenario(NOR, skip_unless=missing_tools)
def update_b_boots_and_is_kept_then_a_panicking_or_unverified_update_rolls_back(ctx):
    g = GrubDevice(ctx)
    off2, size2 = g.put(os.path.join(ctx.images, "update.bundle"))
    # a slot whose kernel cannot start its init: its initramfs is not one
    junk = os.path.join(ctx.workdir, "junk.cpio")
    with open(junk, "wb") as f:
        f.write(b"\x00not an initramfs\n" * 4096)
    off3, size3 = g.put(g.sign(0, boot_image(ctx.workdir, "boot-panics",
                                             os.path.join(ctx.images, "kernel"), junk)))

    # a slot whose root is not the one its manifest names: one byte changed (the bundle's own
    # digest is of the changed image, so the install takes it; the boot's verification does not)
    bad_root = os.path.join(ctx.workdir, "tampered.squashfs")
    shutil.copyfile(os.path.join(ctx.images, "rootfs.squashfs"), bad_root)
    with open(bad_root, "r+b") as f:
        f.seek(os.path.getsize(bad_root) // 2)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0x20]))
    boot = boot_image(ctx.workdir, "boot-good", os.path.join(ctx.images, "kernel"),
                      os.path.join(ctx.images, "initramfs.cpio"))
    off4, size4 = g.put(g.sign("0t", boot, bad_root))

    # power-on 1: factory counters, slot A
    vm = g.power_on()
    assert g.slot_said(vm) == "A"
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "A" and rec["mode"] == "normal", rec
    # GRUB spent one of A's tries (2 left: its message); the init gave them back
    assert re.search(rb"slot A \(2 tries left", vm.buf)
    st = g.marked_good(vm, "A")
    assert st["booted"] == "A", st
    # the new slot's first boot carries the keep list's paths (/etc/dropbear), not the rest
    vm.sh("mkdir -p /etc/dropbear && echo kept-across > /etc/dropbear/carried && "
          "echo A-only > /root/data && sync")
    out = g.install(vm, off2, size2)
    assert "slot B boots next with 3 tries" in out, out
    st = update_status(vm)
    assert st["next"] == "B" and st["order"].startswith("B"), st
    vm.poweroff()

    # power-on 2: GRUB takes the new slot; its root is rootfs_b, verified against B's manifest
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "B" and rec["mode"] == "normal", rec
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    n = lower["source"].removeprefix("/dev/mtdblock")
    assert '"rootfs_b"' in vm.out("grep '^mtd%s:' /proc/mtd" % n), lower
    assert vm.out("cat /etc/dropbear/carried") == "kept-across"
    assert vm.out("[ -e /root/data ] || echo absent") == "absent"
    assert rec["slot_data"] == "carried from A", rec
    status = vm.out("strata status")
    assert "slot:      B" in status and "data:      carried from A at this boot" in status, status
    vm.sh("echo B-own > /root/data && sync")
    st = g.marked_good(vm, "B")
    assert st["booted"] == "B" and st["slots"]["A"]["left"] == 3, st
    version = vm.out("cat /etc/strata/version")
    assert "STRATA_B_VERSION=%s" % version in vm.out("cat /boot/grubenv")
    # an older bundle is refused, and --allow-downgrade takes it; this one gets a single try
    out = g.install(vm, off3, size3, expect_rc=1)
    assert "older than the running" in out, out
    g.install_once(vm, off3, size3)
    vm.poweroff()

    # power-on 3: slot A, its last try; the kernel panics and the board resets
    g.fails("A", r"Kernel panic")

    # power-on 4: no tries left in A: GRUB goes back to B, on the data it had; A's kept
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "B" and rec["mode"] == "normal" and rec["slot_data"] == "", rec
    assert vm.out("cat /root/data") == "B-own"
    assert "data:      slot A's kept for its next boot" in vm.out("strata update status")
    st = g.marked_good(vm, "B")
    assert st["booted"] == "B" and st["rolled_back_from"] == "A" \
        and st["slots"]["A"]["left"] == 0, st
    # one try, as that install gave it (not update.conf's 3); no record of why: that boot never
    # reached the init
    assert "rolled back from A after 1 failed boot (never marked good)" \
        in vm.out("strata update status")
    status = vm.out("strata status")
    assert "update:    rolled back from A after 1 failed boot" in status, status
    assert "previous:" not in status, status

    # a slot whose root fails verification, one try: the init reboots at once, recording why
    out = g.install(vm, off4, size4, expect_rc=1, args=g.ONCE)  # /tmp is new at every boot
    assert "/tmp/once.conf" in out, out
    g.install_once(vm, off4, size4)
    vm.poweroff()
    g.fails("A", r"FATAL: layer 'rootfs'.*slot A cannot boot: rebooting now")

    # and slot B says why: the failed boot's record, from the shared boot-outcome partition
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    status = vm.out("strata status")
    assert re.search(r"previous: +the boot before this one FAILED: slot A: layer 'rootfs'", status), \
        status
    assert g.marked_good(vm, "B")["rolled_back_from"] == "A"

    # update.conf is in the root, whose upper is on the flash: a FIFO planted there blocks
    # nothing (rcS runs to its end before busybox init starts the shell, and mark-good skips it)
    vm.sh("rm /etc/strata/update.conf && mkfifo /etc/strata/update.conf && sync")
    vm.poweroff()
    vm = g.power_on()
    assert vm.out("[ -p /etc/strata/update.conf ] && echo fifo") == "fifo"
    assert ctx.boot_record(vm)["mode"] == "normal"
