# SPDX-License-Identifier: GPL-2.0-only
"""Firmware updates end to end: on qemu_x86_64_nor through Debian's GRUB
(board/qemu_x86_64_nor/grub.cfg, tools/grubdisk.sh), on qemu_aarch64_virt
through Debian's U-Boot (board/qemu_aarch64_virt/boot.cmd,
tools/bootdisk.sh): the boot disk holds the counters, each slot's kernel and
initramfs, and each slot's root layer (block2mtd over its partition). Every power-on is one QEMU run: GRUB takes a
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
ARM64 = "qemu_aarch64_virt"
UBOOT = "/usr/lib/u-boot/qemu_arm64/u-boot.bin"
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


def missing_uboot():
    for tool in ("mkimage", "mkenvimage", "fw_printenv", "sfdisk", "mke2fs", "signify-openbsd"):
        if not shutil.which(tool):
            return "%s not installed (u-boot-tools, libubootenv-tool, fdisk, e2fsprogs, " \
                   "signify-openbsd: make deps)" % tool
    if not os.path.exists(UBOOT):
        return "%s not installed (u-boot-qemu: make deps)" % UBOOT
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


class SlotDevice:
    """A board booted by its bootloader from a boot disk, A/B slots on it; every disk a
    virtio-blk device of its own, in this order: rootfs_data's, strata_log's, the boot disk,
    the bundles' (vda, vdb, vdc, vdd)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.dev = ctx.machine()
        self.dir = self.dev.dir
        # the build's signing key (its development key: the build makes one in O/dev-key)
        self.key = os.path.join(ctx.images, "..", "dev-key", "strata.sec")
        self.bundles = []  # (offset, size) on the bundle disk
        self.power_ons = 0

    def path(self, name):
        return os.path.join(self.dir, name)

    def disks(self):
        names = ["flash-data.bin", "flash-log.bin", "disk.img"]
        if os.path.exists(self.path("bundles.img")):
            names.append("bundles.img")
        return names

    def sign(self, version, *images):
        """A bundle of images (NAME=FILE), signed with the build's key."""
        out = os.path.join(self.ctx.workdir, "v%s.bundle" % version)
        run(os.path.join(TOP, "tools/mkbundle.sh"), "-k", self.key, "-c", self.ctx.board,
            "-v", str(version), "-o", out, *images)
        return out

    def script(self):
        """The power-on: the bootloader and the disks."""
        path = self.path("power-on.sh")
        with open(path, "w") as f:
            f.write("#!/bin/bash\nexec %s \"$@\"\n" % " ".join("'%s'" % a for a in self.qemu()))
        os.chmod(path, 0o755)
        return path

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

    def install_once(self, vm, offset, size, args=""):
        """An older bundle, given one try: update.conf with 'tries 1', for this install alone."""
        vm.sh("sed '/^tries /d; $a tries 1' /etc/strata/update.conf > /tmp/once.conf")
        out = self.install(vm, offset, size, args=" ".join(filter(None, (self.ONCE, args))))
        assert "slot A boots next with 1 tries" in out, out


class GrubDevice(SlotDevice):
    """qemu_x86_64_nor booted by GRUB (tools/grubdisk.sh): GRUB is the kernel QEMU starts, the
    boot disk first in the BIOS's order."""

    def __init__(self, ctx):
        super().__init__(ctx)
        img = ctx.images
        run(os.path.join(TOP, "tools/grubdisk.sh"), self.path("disk.img"), self.path("grub.lnx"),
            os.path.join(TOP, "board", NOR),
            "kernel_a=" + os.path.join(img, "kernel"),
            "initramfs_a=" + os.path.join(img, "initramfs.cpio"),
            "rootfs_a=" + os.path.join(img, "rootfs.squashfs"),
            "bootargs=" + BOOTARGS)

    def qemu(self):
        cmd = ["qemu-system-x86_64", "-M", "pc", "-smp", "1", "-m", "256", "-nographic",
               "-no-user-config", "-nic", "none", "-accel", "tcg", "-kernel", self.path("grub.lnx")]
        for i, name in enumerate(self.disks()):
            cmd += ["-drive", "file=%s,if=none,id=d%d,format=raw" % (self.path(name), i),
                    "-device", "virtio-blk-pci,drive=d%d,addr=%d%s"
                    % (i, 4 + i, ",bootindex=1" if name == "disk.img" else "")]
        return cmd

    def sign(self, version, boot, rootfs=None):
        """A bundle of a boot image and this build's root (or another)."""
        return super().sign(version, "boot=" + boot,
                            "rootfs=" + (rootfs or os.path.join(self.ctx.images, "rootfs.squashfs")))

    GRUBENV = b"# GRUB Environment Block\n"

    def bootargs(self, extra=""):
        """Sets the kernel command line of the next power-ons (strata_bootargs in the boot
        partition's grubenv, as grub-editenv would) to the board's and extra: the board is
        off."""
        start = 2048 * 512  # the boot partition (tools/grubdisk.sh), 4 MiB of ext2
        with open(self.path("disk.img"), "r+b") as disk:
            disk.seek(start)
            part = disk.read(4 << 20)
            at = part.find(self.GRUBENV)
            assert at >= 0 and at % 1024 == 0, "no grubenv block in the boot partition"
            block = part[at:at + 1024]
            env = [line for line in block[len(self.GRUBENV):].split(b"\n")
                   if b"=" in line and not line.startswith(b"#")
                   and not line.startswith(b"strata_bootargs=")]
            env.append(("strata_bootargs=%s %s" % (BOOTARGS, extra)).strip().encode())
            text = self.GRUBENV + b"".join(line + b"\n" for line in env)
            assert len(text) <= 1024, text
            disk.seek(start + at)
            disk.write(text.ljust(1024, b"#"))



# the board's command line (board/qemu_aarch64_virt/qemu.sh) with the slots' roots on the boot
# disk (vdc, tools/bootdisk.sh: partitions 7 and 8); mem= keeps the kernel off the NOR region
ARM64_BOOTARGS = ("console=ttyAMA0 panic=-1 mem=448M "
                  "block2mtd.block2mtd=/dev/vdc7,131072,rootfs_a "
                  "block2mtd.block2mtd=/dev/vdc8,131072,rootfs_b")


class UBootDevice(SlotDevice):
    """qemu_aarch64_virt booted by Debian's U-Boot (tools/bootdisk.sh): the factory
    environment in the second CFI flash, the counters in the boot disk's bootenv partition."""

    def __init__(self, ctx):
        super().__init__(ctx)
        img = ctx.images
        board = os.path.join(ctx.workdir, "board")
        shutil.copytree(os.path.join(TOP, "board", ARM64), board)
        env = os.path.join(board, "uboot-env.txt")
        with open(env) as f:
            text = f.read()
        with open(env, "w") as f:
            f.write(re.sub(r"(?m)^strata_bootargs=.*$", "strata_bootargs=" + ARM64_BOOTARGS, text))
        run(os.path.join(TOP, "tools/bootdisk.sh"), self.path("disk.img"), self.path("flash1.img"),
            board, "kernel_a=" + os.path.join(img, "kernel"),
            "initramfs_a=" + os.path.join(img, "initramfs.cpio"),
            "rootfs_a=" + os.path.join(img, "rootfs.squashfs"))

    def qemu(self):
        cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a57", "-smp", "1", "-m", "512",
               "-nographic", "-no-user-config", "-nic", "none", "-bios", UBOOT,
               "-drive", "if=pflash,format=raw,index=1,readonly=on,file=" + self.path("flash1.img")]
        for name in self.disks():
            cmd += ["-drive", "if=virtio,format=raw,file=" + self.path(name)]
        return cmd

    def printenv(self):
        """The counters as libubootenv's fw_printenv reads them from the boot disk's first copy
        (the board is off)."""
        disk = self.path("disk.img")
        table = subprocess.run(["sfdisk", "-d", disk], check=True, stdout=subprocess.PIPE,
                               text=True).stdout
        start = int(re.search(r"start=\s*(\d+),.*name=\"bootenv\"", table).group(1)) * 512
        conf = self.path("fw_env.config")
        with open(conf, "w") as f:
            f.write("%s 0x%x 0x4000\n" % (disk, start))  # the first copy
        out = subprocess.run(["fw_printenv", "-c", conf], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

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


def bundle_images(path):
    """The images of a bundle in the order it holds them: (name, size)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    return [(m.group(1).decode(), int(m.group(2)))
            for m in re.finditer(rb"^image (\S+) (\d+) ", head, re.M)]


@scenario(NOR, skip_unless=missing_tools)
def power_cuts_in_an_install_a_first_boot_and_a_mark_good_leave_a_good_slot(ctx):
    """A real power cut (the emulator killed, what the guest had not written lost) in the
    middle of writing the new slot's root, in the new slot's first boot while it carries the
    data over, and in the init's mark-good: each next power-on boots a good slot on whole
    data, and the cut install runs again. (tests/update.sh cuts every write step of an
    install on the host; tests/unit/test_layers.c every step of a carry.)"""
    g = GrubDevice(ctx)
    bundle = os.path.join(ctx.images, "update.bundle")
    off, size = g.put(bundle)
    vm = g.power_on()
    g.marked_good(vm, "A")
    vm.sh("mkdir -p /etc/dropbear && echo kept-across > /etc/dropbear/carried && "
          "echo A-only > /root/data && sync")

    # the install's write steps (init/cmd/update.c): the counters, each 64 KiB read of an
    # image written, each image synced, the counters; the cut lands inside the root image
    images = bundle_images(bundle)
    assert [n for n, _ in images] == ["boot", "rootfs"], images
    (_, boot), (_, root) = images
    step = 1 + (4096 + boot) // 65536 + 1 + (root // 65536) // 2
    vm.sh("dd if=/dev/vdd bs=1M skip=%d status=none | head -c %d > /tmp/u.bundle"
          % (off >> 20, size), timeout=120)
    vm.send("STRATA_UPDATE_CUT=%d strata update install /tmp/u.bundle\n" % step)
    vm.expect(r"strata update: power cut reached", 300)
    vm.kill()
    said = vm.text
    assert "  boot: %d bytes to " % boot in said and "  rootfs:" not in said, said[-2000:]

    # the same slot A, on its data; B is not bootable; the same install runs again
    vm = g.power_on()
    assert g.slot_said(vm) == "A", vm.text[-2000:]
    assert vm.out("cat /root/data") == "A-only"
    st = g.marked_good(vm, "A")
    assert st["slots"]["B"]["left"] == 0 and st["next"] == "A", st
    out = g.install(vm, off, size)
    assert "slot B boots next with 3 tries" in out, out
    vm.poweroff()

    # the first boot of slot B stops dead after the carried generation was made, before the
    # state names it
    g.bootargs("strata.powercut=reset-prepared")
    vm = g.power_on(shell=False)
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    vm.expect(r"first boot of slot B: carrying the keep list from slot A", 120)
    vm.expect(r"strata\.powercut=reset-prepared reached", 120)
    vm.kill()

    # the next boot of B carries again, whole; its init's mark-good stops dead after it stored
    # the counters (GRUB's one copy)
    g.bootargs("strata.powercut=update-1")
    vm = g.power_on(shell=False)
    assert re.search(rb"slot B \(1 tries left", vm.buf), vm.text[-2000:]
    vm.expect(r"first boot of slot B: carrying the keep list from slot A", 120)
    vm.expect(r"strata update: power cut reached", 180)
    vm.kill()

    # B kept its tries (the counters were on the disk when mark-good wrote them), on the
    # carried data; A's generation waits untouched for a rollback
    g.bootargs()
    vm = g.power_on()
    assert re.search(rb"slot B \(2 tries left", vm.buf), vm.text[-2000:]
    assert vm.out("cat /etc/dropbear/carried") == "kept-across"
    assert vm.out("[ -e /root/data ] || echo absent") == "absent"
    st = g.marked_good(vm, "B")
    assert st["booted"] == "B" and st["slots"]["A"]["left"] == 3, st
    assert "data:      slot A's kept" in vm.out("strata update status")
    vm.sh("strata update rollback")
    vm.poweroff()
    vm = g.power_on()
    assert g.slot_said(vm) == "A", vm.text[-2000:]
    assert vm.out("cat /root/data") == "A-only"
    assert vm.out("cat /etc/dropbear/carried") == "kept-across"


@scenario(ARM64, skip_unless=missing_uboot)
def uboot_boots_an_update_and_rolls_back_from_one_that_panics_or_is_never_kept(ctx):
    """The same slots under a real U-Boot (boot.cmd over its own environment format): the
    build's bundle is installed and kept, an older one that panics spends its one try and
    U-Boot goes back to B, and so does it from a slot whose init never marks it good; the
    counters read back by libubootenv's fw_printenv."""
    g = UBootDevice(ctx)
    off2, size2 = g.put(os.path.join(ctx.images, "update.bundle"))
    junk = os.path.join(ctx.workdir, "junk.cpio")
    with open(junk, "wb") as f:
        f.write(b"\x00not an initramfs\n" * 4096)
    off3, size3 = g.put(g.sign(0, "kernel=" + os.path.join(ctx.images, "kernel"),
                               "initramfs=" + junk,
                               "rootfs=" + os.path.join(ctx.images, "rootfs.squashfs")))

    # factory counters: U-Boot starts them, takes slot A and saves its try before the kernel
    vm = g.power_on()
    assert g.slot_said(vm) == "A" and re.search(rb"slot A \(2 tries left", vm.buf), \
        vm.text[-2000:]
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "A" and rec["mode"] == "normal", rec
    g.marked_good(vm, "A")
    vm.sh("mkdir -p /etc/dropbear && echo kept-across > /etc/dropbear/carried && "
          "echo A-only > /root/data && sync")
    out = g.install(vm, off2, size2)
    assert "slot B boots next with 3 tries" in out, out
    vm.poweroff()
    env = g.printenv()
    assert env["BOOT_ORDER"] == "B A" and env["BOOT_B_LEFT"] == "3" \
        and env["BOOT_A_LEFT"] == "3", env

    # U-Boot takes B: its kernel, initramfs and root, the keep list carried over
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    rec = ctx.boot_record(vm)
    assert rec["slot"] == "B" and rec["mode"] == "normal" \
        and rec["slot_data"] == "carried from A", rec
    lower = ctx.mount_at(vm, "/run/strata/lower/0")
    n = lower["source"].removeprefix("/dev/mtdblock")
    assert '"rootfs_b"' in vm.out("grep '^mtd%s:' /proc/mtd" % n), lower
    assert vm.out("cat /etc/dropbear/carried") == "kept-across"
    assert vm.out("[ -e /root/data ] || echo absent") == "absent"
    st = g.marked_good(vm, "B")
    assert st["booted"] == "B" and st["slots"]["A"]["left"] == 3, st
    version = vm.out("cat /etc/strata/version")
    # an older bundle is refused, slot A left as it was; --allow-downgrade takes it
    out = g.install(vm, off3, size3, expect_rc=1)
    assert "older than the running" in out, out
    assert update_status(vm)["slots"]["A"]["left"] == 3
    g.install_once(vm, off3, size3)
    vm.poweroff()

    # A's one try: the kernel panics, the board resets; U-Boot goes back to B
    g.fails("A", r"Kernel panic")
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    assert vm.out("cat /etc/dropbear/carried") == "kept-across"
    st = g.marked_good(vm, "B")
    assert st["rolled_back_from"] == "A" and st["slots"]["A"]["left"] == 0, st
    assert "rolled back from A after 1 failed boot (never marked good)" \
        in vm.out("strata update status")
    vm.poweroff()
    # what strata keeps beside the counters went through U-Boot's saves (boot.cmd)
    env = g.printenv()
    assert env["BOOT_A_LEFT"] == "0" and env["BOOT_B_LEFT"] == "3" \
        and env["STRATA_B_VERSION"] == version and env["STRATA_A_TRIES"] == "1", env

    # a slot that boots to its shell but whose init never marks it good (an inittab without
    # the line, carried into it): its one try spent, U-Boot goes back to B at the next power-on
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    vm.sh("grep -v mark-good /run/strata/lower/0/etc/inittab > /etc/inittab && sync")
    g.install_once(vm, off2, size2, "-k /etc/inittab")
    vm.poweroff()
    vm = g.power_on()
    assert g.slot_said(vm) == "A" and ctx.boot_record(vm)["mode"] == "normal", vm.text[-2000:]
    assert vm.sh("grep -q mark-good /etc/inittab", check=False)[0] == 1
    time.sleep(3)  # what the init runs at boot has run
    assert update_status(vm)["slots"]["A"]["left"] == 0
    vm.poweroff()
    vm = g.power_on()
    assert g.slot_said(vm) == "B", vm.text[-2000:]
    assert "rolled back from A after 1 failed boot (never marked good)" \
        in vm.out("strata update status")
    # B's own init line back (its data had the edited inittab for the carry)
    vm.sh("cp /run/strata/lower/0/etc/inittab /etc/inittab && strata update mark-good")
    assert update_status(vm)["slots"]["B"]["left"] == 3
