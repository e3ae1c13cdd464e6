# SPDX-License-Identifier: GPL-2.0-only
"""Fault campaign: power cuts while the upper is written, flash that fails
reads or is gone, a full upper, a missing module, command line garbage.
Each case adds a row (case, survived, lost) to the campaign table that
tests/report.sh prints (TEST_OUT/faults.txt)."""
import gzip
import os
import random
import re
import time

from flashimg import initramfs_path, read_initramfs
from scenario import scenario

NOR = "qemu_x86_64_nor"
MODULAR = "qemu_x86_64_nor@modular"  # Debian's kernel package, modules in the initramfs
NAND = "qemu_x86_64_nand"
FILES = 8  # files replaced atomically in each round of the write workload

# One round: every file replaced atomically, as applications do (written to a
# temporary name, fsync'd, renamed), a line appended to a log, then sync(2)
# and an acknowledgement on the console; then one file written without any
# sync. fsync alone is not the durability point on the QEMU boards: block2mtd
# writes into the guest's page cache of the virtio disk, which only sync(2)
# (or writeback, 30 s later) sends to the disk image; real MTD writes are
# synchronous.
WORKLOAD = ("mkdir -p /root/pc && cd /root/pc && g=0; while :; do g=$((g+1)); i=0; "
            "while [ $i -lt %(files)d ]; do "
            "yes \"g=$g f=$i\" | head -n 64 > f$i.tmp && sync f$i.tmp && mv f$i.tmp f$i; "
            "i=$((i+1)); done; "
            "echo \"line $g\" >> log && sync && echo \"ACK $g\"; "
            "yes \"u=$g\" | head -n 64 > u$g; done")


def content(tag, n):
    return ("%s\n" % tag) * n


def read_files(vm):
    """Name -> content of each file under /root/pc, through the console."""
    out = vm.out("cd /root/pc && for f in *; do echo \"@@F $f\"; cat $f; done; cd /")
    files, name = {}, None
    for line in out.splitlines():
        if line.startswith("@@F "):
            name = line[4:]
            files[name] = ""
        elif name is not None:
            files[name] += line + "\n"
    return files


def fault_case(ctx, case, ok, note=""):
    """One case of the campaign's table: survived or lost."""
    ctx.fault_row(case, int(ok), int(not ok), note)


def power_cut_while_writing(ctx, case):
    dev = ctx.machine()
    vm = dev.boot()
    # the old state: each file with generation 0, durable
    vm.sh("mkdir -p /root/pc && i=0; while [ $i -lt %d ]; do yes 'g=0 f='$i | head -n 64 "
          "> /root/pc/f$i; i=$((i+1)); done; sync" % FILES)
    rng = random.Random(os.environ.get("FAULT_SEED", case))
    cut_after = rng.randint(2, 3)
    vm.send(WORKLOAD % {"files": FILES} + "\n")
    vm.expect(r"ACK %d\r?\n" % cut_after, 300)
    time.sleep(rng.uniform(0.2, 2.0))
    vm.kill()  # power cut in the middle of a later round
    acked = max(int(n) for n in re.findall(r"^ACK (\d+)\r?$", vm.text, re.M))
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal", rec
    files = read_files(vm)
    survived = lost = 0
    bad = []
    # atomic replacements: each file is wholly the acknowledged generation or
    # the one the cut interrupted, never torn, never older
    for i in range(FILES):
        got = files.get("f%d" % i)
        if got in (content("g=%d f=%d" % (acked, i), 64),
                   content("g=%d f=%d" % (acked + 1, i), 64)):
            survived += 1
        else:
            lost += 1
            bad.append(("f%d" % i, (got or "")[:40]))
    # the log keeps every acknowledged line
    lines = files.get("log", "").splitlines()
    for g in range(1, acked + 1):
        if "line %d" % g in lines:
            survived += 1
        else:
            lost += 1
            bad.append(("log", "line %d" % g))
    # files written without any sync may be gone or empty, but never torn
    unsynced = [n for n in files if n.startswith("u")]
    for n in unsynced:
        if files[n] != content("u=%s" % n[1:], 64) and files[n] != "":
            bad.append((n, files[n][:40]))
            lost += 1
    temps = [n for n in files if n.endswith(".tmp")]
    ctx.fault_row(case, survived, lost, "cut after round %d; %d of %d unsynced files kept, "
                  "%d temporary files left" % (acked, len(unsynced), acked, len(temps)))
    assert not bad, bad
    # and the device goes on writing
    vm.sh("echo after > /root/pc/after && sync && test \"$(cat /root/pc/after)\" = after")


@scenario(NOR)
def fault_power_cut_while_writing_jffs2(ctx):
    power_cut_while_writing(ctx, "power cut while writing the upper (jffs2)")


@scenario(NAND)
def fault_power_cut_while_writing_ubifs(ctx):
    power_cut_while_writing(ctx, "power cut while writing the upper (ubifs)")


def patch_drive(dev, old, new):
    """Changes the QEMU -drive of one flash image in this machine's launcher."""
    script = dev.path("start-qemu.sh")
    text = open(script).read()
    assert old in text, old
    open(script, "w").write(text.replace(old, new))


@scenario(NOR)
def fault_flash_read_errors_degrade(ctx):
    # every read of the data flash fails with EIO (QEMU blkdebug): the init
    # cannot identify it, says so and boots with a volatile upper
    dev = ctx.machine()
    conf = os.path.join(ctx.workdir, "blkdebug.conf")
    with open(conf, "w") as f:
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\n')
    patch_drive(dev, "file=$here/flash-data.bin,if=virtio,format=raw",
                "driver=raw,file.driver=blkdebug,file.config=%s,"
                "file.image.filename=$here/flash-data.bin,if=virtio" % conf)
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    ok = rec["mode"] == "degraded" and "I/O error" in rec["degraded_reason"]
    fault_case(ctx, "flash returns I/O errors on read", ok, rec["degraded_reason"])
    assert ok, rec
    assert "cannot read 'rootfs_data'" in rec["degraded_reason"], rec
    rc, out = vm.sh("strata status", check=False)
    assert rc == 1 and "mode:      degraded" in out, out
    vm.sh("echo x > /root/volatile && test -s /root/volatile")


@scenario(NOR)
def fault_truncated_flash_image_degrades(ctx):
    # the data flash's image has lost everything (a zero-length disk): the
    # init finds nothing it knows, leaves it alone and boots volatile
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo kept > /root/f && sync")
    vm.poweroff()
    os.truncate(dev.path("flash-data.bin"), 0)
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    ok = rec["mode"] == "degraded" and "'rootfs_data'" in rec["degraded_reason"]
    fault_case(ctx, "flash image truncated to nothing", ok, rec["degraded_reason"])
    assert ok, rec
    vm.poweroff()
    assert os.path.getsize(dev.path("flash-data.bin")) == 0, "strata wrote to it"


@scenario(NOR)
def fault_full_upper_still_boots(ctx):
    # the upper fills up: writes fail with ENOSPC. The next boot keeps what
    # was written; overlayfs cannot create its work directory and mounts
    # read-only, which strata says (kmsg, status exit 1); space freed in the
    # raw upper makes the next boot writable again
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo before > /root/before && sync")
    # (after the CRNG is ready and its static key patched: see hostile.RANDOM)
    rc, out = vm.sh("head -c 1 /dev/random > /dev/null && sleep 1 && "
                    "dd if=/dev/urandom of=/root/fill bs=64k 2>&1; sync", timeout=600,
                    check=False)
    assert "No space left on device" in out, out
    rc, out = vm.sh("echo more > /root/more 2>&1", check=False)
    assert rc != 0 and "No space left on device" in out, out
    vm.poweroff()
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    rc, status = vm.sh("strata status", check=False)
    kept = vm.out("cat /root/before") == "before"
    full = "full: writes fail with ENOSPC" in status
    said = "overlay:   / is READ-ONLY" in status and rc == 1 and \
        "overlay on /newroot is READ-ONLY" in vm.out("dmesg")
    ok = rec["mode"] == "normal" and kept and full and said
    fault_case(ctx, "upper full (ENOSPC)", ok,
               "root read-only, said by status and kmsg" if said else status)
    assert rec["mode"] == "normal" and kept, rec
    assert full and said, (rc, status)
    vm.sh("rm -f /run/strata/data/user.1/upper/root/fill && sync")
    vm.poweroff()
    vm = dev.boot()
    vm.sh("echo more > /root/more && sync")
    rc, status = vm.sh("strata status", check=False)
    assert rc == 0 and "full" not in status and "READ-ONLY" not in status, status


def initramfs_without(dev, module):
    """Rewrites this machine's initramfs without lib/modules/MODULE.ko(.xz)."""
    path = initramfs_path(dev)
    data = read_initramfs(path)
    out, pos, dropped = bytearray(), 0, False
    while pos < len(data):
        namesize = int(data[pos + 94:pos + 102], 16)
        filesize = int(data[pos + 54:pos + 62], 16)
        name = data[pos + 110:pos + 110 + namesize - 1].decode()
        end = (pos + 110 + namesize + 3) & ~3
        end = (end + filesize + 3) & ~3
        if name in ("lib/modules/%s.ko.xz" % module, "lib/modules/%s.ko" % module):
            dropped = True
        else:
            out += data[pos:end]
        pos = end
        if name == "TRAILER!!!":
            break
    assert dropped, module
    os.unlink(path)  # a symlink to the shared image
    with open(path, "wb") as f:
        f.write(gzip.compress(bytes(out), 1))  # the kernel tells gzip by its magic


@scenario(MODULAR)
def fault_missing_module_is_named(ctx):
    # an initramfs without jffs2: the init names the module, the upper cannot
    # be mounted, and strata.degraded=tmpfs (the default) boots volatile
    dev = ctx.machine()
    initramfs_without(dev, "jffs2")
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    named = "cannot load module jffs2" in vm.out("dmesg")
    ok = named and rec["mode"] == "degraded"
    fault_case(ctx, "module missing from the initramfs (jffs2)", ok, rec["degraded_reason"])
    assert named, vm.out("dmesg | grep strata")
    # the degraded boot is recorded without complaint
    assert "cannot write the boot-outcome record" not in vm.text, vm.out("dmesg | grep strata")
    assert rec["mode"] == "degraded" and "jffs2" in rec["degraded_reason"], rec


@scenario(NOR)
def fault_cmdline_garbage_long_keys(ctx):
    # over-long and malformed strata.* keys are each rejected by name; the
    # boot goes on with the defaults
    garbage = ["strata.init=/" + "i" * 300, "strata." + "k" * 100 + "=1",
               "strata.root=" + "r" * 70, "strata.rootwait=99999999999999999999",
               "strata.rootwait=-1", "strata.debug=1=2", "strata.fatal=", "strata.degraded",
               "strata.=x", "strata.fatal=r\u00e9boot"]
    vm = ctx.machine().boot(append=" ".join(garbage))
    rec = ctx.boot_record(vm)
    # each is named on the console (and in kmsg, as far as its rate limit lets it)
    named = vm.text.count("ignoring kernel command line key 'strata.")
    in_kmsg = vm.out("dmesg").count("ignoring kernel command line key 'strata.")
    ok = rec["mode"] == "normal" and rec["cmdline_rejected"] == len(garbage) == named
    fault_case(ctx, "kernel command line garbage (%d keys)" % len(garbage), ok,
               "%d rejected, %d named on the console, %d in kmsg"
               % (rec["cmdline_rejected"], named, in_kmsg))
    assert ok, (rec["cmdline_rejected"], named, rec["mode"])
    assert rec["init"] == "/sbin/init" and ctx.mount_at(vm, "/")["fstype"] == "overlay"
