# SPDX-License-Identifier: GPL-2.0-only
"""make bench: boot-time, CPU, memory and size figures of strata on a board,
beside a plain busybox-shell preinit doing the same job in the same run."""
import argparse
import concurrent.futures
import fnmatch
import glob
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm import VM, Machine  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def kmsg_at(dmesg, key):
    """the kernel's timestamp (ms) of the first line starting with key"""
    for line in dmesg.splitlines():
        m = re.match(r"\[\s*(\d+\.\d+)\] (.*)", line)
        if m and m.group(2).startswith(key):
            return float(m.group(1)) * 1000.0
    raise KeyError(key)


def kmsg_interval(dmesg, start, end):
    ts = {}
    for line in dmesg.splitlines():
        m = re.match(r"\[\s*(\d+\.\d+)\] (.*)", line)
        if m:
            for key in (start, end):
                if m.group(2).startswith(key) and key not in ts:
                    ts[key] = float(m.group(1))
    return (ts[end] - ts[start]) * 1000.0


def shell_images(build, images, out, plain=False):
    """images with the initramfs's /init replaced by tests/bench-preinit.sh; plain:
    the modules stored decompressed (.ko) in the (compressed) initramfs"""
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(images):
        dst = os.path.join(out, name)
        if not os.path.lexists(dst) and not name.startswith(("initramfs", "start-qemu")):
            os.symlink(os.path.join(images, name), dst)
    shutil.copy2(os.path.join(images, "start-qemu.sh"), os.path.join(out, "start-qemu.sh"))
    lst = open(os.path.join(build, "initramfs.list")).read()
    lst = re.sub(r"^file /init .*$", "file /init %s/tests/bench-preinit.sh 0755 0 0" % TOP,
                 lst, flags=re.M)
    if "file /bin/busybox" not in lst:
        sys.exit("bench: the preinit baseline needs CONFIG_STRATA_EMERGENCY_SHELL=y (busybox)")
    if plain:
        mods = os.path.join(out, "modules")
        os.makedirs(mods, exist_ok=True)

        def unxz(m):
            dst = os.path.join(mods, m.group(1) + ".ko")
            with open(dst, "wb") as f:
                subprocess.check_call(["xz", "-dc", m.group(2)], stdout=f)
            return "file /lib/modules/%s.ko %s 0644 0 0" % (m.group(1), dst)
        lst = re.sub(r"^file /lib/modules/(\S+)\.ko\.xz (\S+) .*$", unxz, lst, flags=re.M)
    path = os.path.join(build, "initramfs-shell%s.list" % ("-ko" if plain else ""))
    open(path, "w").write(lst)
    script = open(os.path.join(images, "start-qemu.sh")).read()
    m = re.search(r'^initramfs="\$here/(initramfs\.cpio(\.\w+)?)"', script, re.M)
    comp = {".xz": ["xz", "-9", "--check=crc32"], ".gz": ["gzip", "-9", "-n"], None: ["cat"]}[
        m.group(2)]
    with open(os.path.join(out, m.group(1)), "wb") as f:
        p1 = subprocess.Popen([os.path.join(build, "mkcpio"), path], stdout=subprocess.PIPE)
        subprocess.check_call(comp, stdin=p1.stdout, stdout=f)
        if p1.wait():
            sys.exit("bench: mkcpio failed")


def boot_once(kind, images, work, keep=False, append=""):
    """Measures a device's second boot: what it does every day, not first-boot formatting.
    keep: the running machine comes back as "vm" (the caller kills it)."""
    dev = Machine(images, work, append)
    dev.boot(timeout=180).poweroff()
    vm = dev.boot(timeout=180)
    try:
        dmesg = vm.out("dmesg")
        if kind == "strata":
            rec = json.loads(vm.out("cat /run/strata/boot.json"))
            r = {"ms": (rec["exec_ns"] - rec["init_start_ns"]) / 1e6,
                    "kmsg_ms": kmsg_interval(dmesg, "strata: starting", "strata: exec"),
                    "kernel_ms": kmsg_at(dmesg, "strata: starting"),
                    "cpu_ms": rec["cpu_ns"] / 1e6, "user_ms": rec["cpu_user_ns"] / 1e6,
                    "sys_ms": rec["cpu_sys_ns"] / 1e6, "rss_kb": rec["maxrss_kb"],
                    "verity_ms": sum(v["ns"] for v in rec.get("verity", [])) / 1e6,
                    "verity_bytes": sum(v["bytes"] for v in rec.get("verity", [])),
                    "phases": {p["name"]: (p["end_ns"] - p["start_ns"]) / 1e6
                               for p in rec["phases"]}}
            if keep:
                r["vm"], vm = vm, None
            return r
        return {"kmsg_ms": kmsg_interval(dmesg, "preinit: start", "preinit: exec"),
                "kernel_ms": kmsg_at(dmesg, "preinit: start")}
    finally:
        if vm:
            vm.kill()


def reset_boot(images, work, fill_mib, flash_mib):
    """Fills the user layer with fill_mib MiB, boots the device normally with it,
    schedules reset --full there and boots again. Returns (time the init spent
    applying the reset, that boot's assembly time, the normal boot's assembly
    time just before it, with the same layers), all in ms."""
    shutil.rmtree(work, ignore_errors=True)
    dev = Machine(images, work)
    with open(dev.path("flash-data.bin"), "ab") as f:  # a bigger flash, erased
        f.write(b"\xff" * ((flash_mib << 20) - f.tell()))
    vm = dev.boot(timeout=240)
    try:
        vm.sh("dd if=/dev/urandom of=/root/ballast bs=1M count=%d 2>/dev/null; sync" % fill_mib,
              timeout=600)
        used = int(vm.out("du -sk /run/strata/userdata/user.1/upper | cut -f1"))
        assert used >= fill_mib * 1000, used
        vm.poweroff()
        vm = dev.boot(timeout=240)
        rec = json.loads(vm.out("cat /run/strata/boot.json"))
        assert rec["request_applied"] == "", rec
        normal_ms = (rec["exec_ns"] - rec["init_start_ns"]) / 1e6
        vm.sh("strata reset --full -y")
        vm.poweroff()
        vm = dev.boot(timeout=240)
        rec = json.loads(vm.out("cat /run/strata/boot.json"))
        assert rec["request_applied"] == "reset --full", rec
        apply_ms, reset_boot_ms = rec["request_apply_ns"] / 1e6, \
            (rec["exec_ns"] - rec["init_start_ns"]) / 1e6
        return apply_ms, reset_boot_ms, normal_ms
    finally:
        dev.stop()


def reset_bench(args):
    board = "qemu_x86_64_nand"
    o = os.path.join(args.out, board)
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, board + "_defconfig"])
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "all"], stdout=subprocess.DEVNULL)
    images = os.path.join(o, "images")
    runs = {"small": [], "large": []}
    for i in range(args.reset_boots):
        for size, mib in (("small", 1), ("large", 40)):
            runs[size].append(reset_boot(images, os.path.join(o, "reset-%s-%d" % (size, i)),
                                         mib, 128))
    med = lambda size, k: statistics.median(r[k] for r in runs[size])  # noqa: E731
    # each reset boot against the normal boot of the same device just before it
    ratio = lambda size: statistics.median(r[1] / r[2] for r in runs[size])  # noqa: E731
    rows = [
        ("reset board", board + ", 128 MiB flash", "user layer on its own volume"),
        ("reset --full apply, 1 MiB upper", "%.1f ms" % med("small", 0), "median"),
        ("reset --full apply, 40 MiB upper", "%.1f ms" % med("large", 0),
         "ratio %.2f, target <= 1.2" % (med("large", 0) / med("small", 0))),
        ("boot applying the reset (1 MiB)", "%.1f ms" % med("small", 1),
         "%.2f x the normal boot before it (%.1f ms)" % (ratio("small"), med("small", 2))),
        ("boot applying the reset (40 MiB)", "%.1f ms" % med("large", 1),
         "%.2f x the normal boot before it (%.1f ms), target <= 1.2" % (ratio("large"),
                                                                         med("large", 2))),
    ]
    return rows, runs


# A path walk over the root, cold (dentries and inodes dropped first) and warm:
# a lookup and a stat of every entry under /usr, /bin, /sbin, /etc, /lib (one
# ls -lR, so that process start-up does not drown the path walk), 20 times
# each, timed in the guest by /proc/uptime (10 ms ticks: the totals are what
# count); then the overlay inodes a walk leaves in the slab.
WALK_N = 20
_FIND = "ls -lR /usr /bin /sbin /etc /lib >/dev/null"
_NOW = "$(tr -d . < /proc/uptime | cut -d' ' -f1)"
WALK = ("sync; t0=%s; i=0; while [ $i -lt %d ]; do echo 3 > /proc/sys/vm/drop_caches; %s; "
        "i=$((i+1)); done; t1=%s; i=0; while [ $i -lt %d ]; do %s; i=$((i+1)); done; t2=%s; "
        "echo $(( (t1 - t0) * 10000 / %d )) $(( (t2 - t1) * 10000 / %d )) "
        "$(awk '$1 == \"ovl_inode\" { print $2 }' /proc/slabinfo) "
        "$(find /usr /bin /sbin /etc /lib -xdev | wc -l)"
        % (_NOW, WALK_N, _FIND, _NOW, WALK_N, _FIND, _NOW, WALK_N, WALK_N))


def stack_walk(images, work, append, runs):
    """(cold us, warm us, ovl_inode objects, paths) of each run on one device."""
    shutil.rmtree(work, ignore_errors=True)
    dev = Machine(images, work, append)
    dev.boot(timeout=180).poweroff()
    vm = dev.boot(timeout=180)
    try:
        return [tuple(int(x) for x in vm.out(WALK, timeout=300).split()) for _ in range(runs)]
    finally:
        vm.kill()


def stack_bench(args, images):
    """The nested stack against the collapsed one, same board, same run."""
    runs = {}
    for name, append in (("nested", ""), ("collapsed", "strata.stack=system+user")):
        runs[name] = stack_walk(images, os.path.join(args.out, "stack-" + name), append,
                                args.stack_runs)
    med = lambda name, k: statistics.median(r[k] for r in runs[name])  # noqa: E731
    paths = runs["nested"][0][3]
    rows = [("path walk", "%d paths" % paths,
             "ls -lR over /usr /bin /sbin /etc /lib, %d times; medians of %d runs"
             % (WALK_N, args.stack_runs))]
    for k, what in ((0, "cold (caches dropped)"), (1, "warm")):
        rows.append(("walk %s, nested" % what, "%.1f ms" % (med("nested", k) / 1000), ""))
        rows.append(("walk %s, collapsed" % what, "%.1f ms" % (med("collapsed", k) / 1000),
                     "ratio collapsed / nested %.2f" % (med("collapsed", k) / med("nested", k))))
    rows.append(("overlay inodes after the walk, nested", "%d" % med("nested", 2),
                 "ovl_inode objects in /proc/slabinfo"))
    rows.append(("overlay inodes after the walk, collapsed", "%d" % med("collapsed", 2),
                 "ratio %.2f" % (med("collapsed", 2) / med("nested", 2))))
    return rows, runs


# the NOR board's root region (board/qemu_x86_64_nor/qemu.sh), declared a second time as
# slot A's root (tests/scenarios/slots.py does the same)
SLOT_A = "strata.slot=A phram.phram=rootfs_a,201326592,33554432,131072"


def slot_bench(args, images):
    """What the slot logic costs a boot: the assembly of a device booted from slot A (its
    root found by the slot's name, the state's slot and update record checked) against the
    same device without slots; second boots, alternated, medians."""
    runs = {"none": [], "A": []}
    for i in range(args.slot_boots):
        for name, append in (("none", ""), ("A", SLOT_A)):
            r = boot_once("strata", images, os.path.join(args.out, "slot-%s-%d" % (name, i)),
                          append=append)
            runs[name].append({"ms": r["ms"], "phases": r["phases"]})
    med = lambda name: statistics.median(r["ms"] for r in runs[name])  # noqa: E731
    # where the slot logic runs: the root found by its slot's name, the data switched
    phase = lambda name, p: statistics.median(r["phases"].get(p, 0) for r in runs[name])  # noqa: E731,E501
    return [("assembly, no slot", "%.1f ms" % med("none"),
             "median of %d second boots (exec_ns - init_start_ns)" % args.slot_boots),
            ("assembly, booted from slot A", "%.1f ms" % med("A"),
             "ratio slot / no slot %.3f; goal <= 1.05" % (med("A") / med("none"))),
            ("partitions + layers phases, no slot / slot A",
             "%.1f / %.1f ms" % (phase("none", "partitions") + phase("none", "layers"),
                                 phase("A", "partitions") + phase("A", "layers")),
             "medians; the phases the slot logic is in")], runs


def build_images(o, board, config=()):
    """make BOARD_defconfig, then make all with CONFIG_...=VALUE settings on the command
    line (as the test variants do), in O=o: returns o/images"""
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, board + "_defconfig"])
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "all"] + list(config),
                          stdout=subprocess.DEVNULL)
    return os.path.join(o, "images")


def blob_tree(d, mib):
    """d/usr/share/bench/blob: mib MiB of SHA-256 output, which squashfs stores as it is"""
    path = os.path.join(d, "usr", "share", "bench", "blob")
    if not os.path.exists(path) or os.path.getsize(path) != mib << 20:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            for i in range(mib << 15):
                f.write(hashlib.sha256(b"strata-bench-%d" % i).digest())
    return d


# the whole root's blob read once, caches dropped first (10 ms ticks of /proc/uptime)
READ_BLOB = ("sync; echo 3 > /proc/sys/vm/drop_caches; t0=%s; cat /usr/share/bench/blob "
             ">/dev/null; t1=%s; echo $(( (t1 - t0) * 10 ))" % (_NOW, _NOW))


def size_once(images, work, read):
    r = boot_once("strata", images, work, keep=read)
    if read:
        vm = r.pop("vm")
        try:
            r["read_ms"] = int(vm.out(READ_BLOB, timeout=600))
        finally:
            vm.kill()
    return r


def size_bench(args, board):
    """Assembly with 1, 16 and 64 MiB root layers: digest mode, dm-verity mode and the
    shell preinit reference (modules plain everywhere), same run; and reading the 64 MiB
    root once in each mode."""
    res, images = {}, {}
    for mib in SIZES:
        tree = blob_tree(os.path.join(args.out, "blob-%d" % mib, "tree"), mib)
        for mode in ("digest", "dm-verity"):
            o = os.path.join(args.out, "%s-%dmib-%s" % (board, mib, mode))
            images[(mib, mode)] = build_images(o, board, [
                "CONFIG_STRATA_MODULES_XZ=", "CONFIG_STRATA_VERITY_MODE=" + mode,
                "OVERLAYS=" + tree])
        o = os.path.join(args.out, "%s-%dmib-digest" % (board, mib))
        images[(mib, "shell")] = os.path.join(o, "images-shell-ko")
        shell_images(os.path.join(o, "build"), images[(mib, "digest")], images[(mib, "shell")],
                     plain=True)
    for i in range(args.size_boots):
        for (mib, mode), imgs in images.items():
            work = os.path.join(args.out, "size-work", "%d-%s-%d" % (mib, mode, i))
            shutil.rmtree(work, ignore_errors=True)
            if mode == "shell":
                r = boot_once("shell", imgs, work)
            else:
                r = size_once(imgs, work, read=mib == SIZES[-1])
            res.setdefault("%d-%s" % (mib, mode), []).append(r)
    med = lambda key, k: statistics.median(r[k] for r in res[key])  # noqa: E731
    rows = [("size board", board, "root layer = the default root + N MiB of incompressible "
             "data; modules .ko; medians of %d boots" % args.size_boots)]
    for mib in SIZES:
        sh = med("%d-shell" % mib, "kmsg_ms")
        for mode in ("digest", "dm-verity"):
            key = "%d-%s" % (mib, mode)
            rows.append(("assembly, %d MiB root, %s" % (mib, mode), "%.1f ms" % med(key, "kmsg_ms"),
                         "ratio to the shell %.2f; measuring %.1f ms (%.1f MiB)"
                         % (med(key, "kmsg_ms") / sh, med(key, "verity_ms"),
                            med(key, "verity_bytes") / 2**20)))
        rows.append(("assembly, %d MiB root, shell preinit" % mib, "%.1f ms" % sh, "no verification"))
    for mode in ("digest", "dm-verity"):
        big, small = "%d-%s" % (SIZES[-1], mode), "%d-%s" % (SIZES[0], mode)
        rows.append(("%s: %d MiB / %d MiB assembly" % (mode, SIZES[-1], SIZES[0]),
                     "%.2f" % (med(big, "kmsg_ms") / med(small, "kmsg_ms")),
                     "target <= 1.10 in dm-verity mode"))
        rows.append(("reading the %d MiB root once, %s" % (SIZES[-1], mode),
                     "%.0f ms" % med(big, "read_ms"),
                     "cat of the blob, caches dropped; %s" % (
                         "the kernel checks each block" if mode == "dm-verity"
                         else "checked at boot, read as is")))
    return rows, res


SIZES = (1, 16, 64)


def timed(argv):
    """Runs argv: (wall seconds, CPU seconds user+sys, stdout)."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    out = subprocess.check_output(argv, text=True)
    t, r1 = time.monotonic() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out


def digest_bench(args):
    """The userspace fs-verity digest (init/lib/fsverity.c built for the host with gcc -O2)
    against fsverity-utils' `fsverity digest` on the same 512 MiB file, same run."""
    d = os.path.join(args.out, "digest")
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "fsverity_bench")
    subprocess.check_call(["gcc", "-std=gnu11", "-O2", "-pthread", "-o", prog,
                           os.path.join(TOP, "tests/bench/fsverity_bench.c"),
                           os.path.join(TOP, "init/lib/fsverity.c")])
    data = os.path.join(d, "data.bin")
    size = args.digest_mib << 20
    if not os.path.exists(data) or os.path.getsize(data) != size:
        with open("/dev/urandom", "rb") as src, open(data, "wb") as f:
            for _ in range(args.digest_mib):
                f.write(src.read(1 << 20))
    subprocess.check_call(["cat", data], stdout=subprocess.DEVNULL)  # into the page cache
    cpus = os.cpu_count() or 1
    runs = {"fsverity": [], "ours_1": [], "ours_n": []}  # (wall, cpu) seconds
    for _ in range(args.digest_runs):
        t, cpu, out = timed(["fsverity", "digest", "--compact", data])
        runs["fsverity"].append((t, cpu))
        want = out.strip()
        for threads, key in ((1, "ours_1"), (cpus, "ours_n")):
            t, cpu, out = timed([prog, data, str(threads)])
            got, impl = out.split()[0], out.split()[2]
            if got != want:
                sys.exit("bench: digest mismatch: %s vs fsverity digest %s" % (got, want))
            runs[key].append((t, cpu))
    wall = {k: min(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: min(r[1] for r in v) for k, v in runs.items()}
    mibs = lambda t: args.digest_mib / t  # noqa: E731
    rows = [
        ("digest file", "%d MiB" % args.digest_mib,
         "page cache; best of %d runs each; SHA-256: %s" % (args.digest_runs, impl)),
        ("fsverity digest (fsverity-utils)", "%.0f MiB/s" % mibs(wall["fsverity"]),
         "%.0f MiB per CPU second" % mibs(cpu["fsverity"])),
        ("strata digest, 1 thread", "%.0f MiB/s" % mibs(wall["ours_1"]),
         "ratio %.2f (CPU time: %.2f), target >= 1.0"
         % (wall["fsverity"] / wall["ours_1"], cpu["fsverity"] / cpu["ours_1"])),
        ("strata digest, %d threads" % cpus, "%.0f MiB/s" % mibs(wall["ours_n"]),
         "ratio %.2f" % (wall["fsverity"] / wall["ours_n"])),
    ]
    return rows, {"seconds": runs, "threads": cpus, "mib": args.digest_mib, "sha256": impl}


OPENWRT_ROOTFS = os.environ.get("OPENWRT_ROOTFS", os.path.join(
    TOP, "..", "shared", "openwrt", "openwrt-18.06.4-x86-64-generic-rootfs.tar.gz"))
CONSOLE = "Please press Enter to activate this console"


def fstools_images(o, strata_images, tarball):
    """OpenWrt's own boot of the same root on the same flash and kernel: the
    release's root as it is (fstools' mount_root, not strata's) in the NOR's
    squashfs, made as strata's build makes it (xz), and no initramfs: the
    kernel mounts the squashfs (root=/dev/mtdblock0), procd's preinit runs
    mount_root on rootfs_data (the same block2mtd partition)."""
    out, tree = os.path.join(o, "images-fstools"), os.path.join(o, "fstools-tree")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(out)
    os.makedirs(tree)
    subprocess.check_call(["tar", "-xzf", tarball, "-C", tree, "--numeric-owner"])
    img = os.path.join(o, "fstools.squashfs")
    subprocess.check_call(["mksquashfs", tree, img, "-noappend", "-comp", "xz", "-quiet"],
                          stdout=subprocess.DEVNULL)
    flash = os.path.getsize(os.path.join(strata_images, "flash-rootfs.bin"))
    size = os.path.getsize(img)
    assert size <= flash, (size, flash)
    with open(os.path.join(out, "flash-rootfs.bin"), "wb") as f:
        f.write(open(img, "rb").read() + b"\xff" * (flash - size))
    for name in ("kernel", "flash-data.bin", "flash-log.bin"):
        os.symlink(os.path.join(strata_images, name), os.path.join(out, name))
    script = open(os.path.join(strata_images, "start-qemu.sh")).read()
    addr = int(re.search(r"flash-rootfs\.bin,addr=(0x[0-9a-f]+)", script).group(1), 16)
    script = script.replace(' -initrd "$initramfs"', "")
    script = script.replace('exec "${board_qemu[@]}"',
                            'board_cmdline+=" root=/dev/mtdblock0 rootfstype=squashfs '
                            'phram.phram=rootfs,%d,%d,131072 '
                            'block2mtd.block2mtd=/dev/vda,131072,rootfs_data"\n'
                            'exec "${board_qemu[@]}"' % (addr, flash), 1)
    assert "root=/dev/mtdblock0" in script
    open(os.path.join(out, "start-qemu.sh"), "w").write(script)
    os.chmod(os.path.join(out, "start-qemu.sh"), 0o755)
    return out


def console_boot(dev, n):
    """Boots dev to procd's console; returns (ms from the kernel's clock start to the
    console line, dmesg). The console's shell is the askfirst process itself (it
    execs login.sh, which execs ash): its start time is the line's time."""
    vm = VM(dev.path("start-qemu.sh"), os.path.join(dev.workdir, "console-%d.log" % n))
    try:
        vm.expect(CONSOLE, 240)
        vm.send("\n")
        vm.wait_shell(60)
        ticks, hz = vm.out("cut -d' ' -f22 /proc/$$/stat; getconf CLK_TCK 2>/dev/null || "
                           "echo 100").split()
        ms = int(ticks) * 1000.0 / int(hz)
        dmesg = vm.out("dmesg")
        # "- init complete -": the end of procd's boot; poweroff only after it
        vm.sh("i=0; while ! logread | grep -q -- '- init complete -' && [ $i -lt 120 ]; do "
              "sleep 1; i=$((i+1)); done", timeout=150)
        vm.poweroff(120)
        return ms, dmesg
    finally:
        vm.kill()


def openwrt_bench(args, board_images):
    """OpenWrt 18.06.4 booted the OpenWrt way (fstools) and through strata (verification
    on), same flash, same board kernel: time to procd's console, first and second boot."""
    tarball = os.path.abspath(OPENWRT_ROOTFS)
    if not os.path.exists(tarball):
        return [("OpenWrt incumbent", "skipped", "no %s (set OPENWRT_ROOTFS)" % tarball)], {}
    o = os.path.join(args.out, args.board + "-openwrt")
    strata = build_images(o, args.board, ["ROOTFS=" + tarball])
    fstools = fstools_images(o, strata, tarball)
    runs = {}
    for i in range(args.openwrt_boots):
        for kind, images in (("fstools", fstools), ("strata", strata)):
            work = os.path.join(o, "bench-work", "%s-%d" % (kind, i))
            shutil.rmtree(work, ignore_errors=True)
            dev = Machine(images, work)
            # the image builders' end-of-image marker: rootfs_data to be formatted
            with open(dev.path("flash-data.bin"), "r+b") as f:
                f.write(b"\xde\xad\xc0\xde")
            for boot in ("first", "second"):
                ms, dmesg = console_boot(dev, 1 if boot == "first" else 2)
                init = "Run /init as init process" if kind == "strata" else \
                    "Run /sbin/init as init process"
                r = {"console_ms": ms, "kernel_ms": kmsg_at(dmesg, init)}
                if kind == "strata":
                    r["assembly_ms"] = kmsg_interval(dmesg, "strata: starting", "strata: exec")
                runs.setdefault("%s-%s" % (kind, boot), []).append(r)
    med = lambda key, k: statistics.median(r[k] for r in runs[key])  # noqa: E731
    rows = [("OpenWrt incumbent", "18.06.4 x86-64",
             "%s, board kernel; medians of %d boots each; ms from the kernel's clock start "
             "to \"%s\"" % (args.board, args.openwrt_boots, CONSOLE))]
    for boot in ("first", "second"):
        f, st = med("fstools-" + boot, "console_ms"), med("strata-" + boot, "console_ms")
        rows.append(("OpenWrt %s boot, fstools (OpenWrt's own)" % boot, "%.0f ms" % f,
                     "kernel until /sbin/init %.0f ms (it mounts the squashfs), then "
                     "procd, preinit, mount_root, rc.d" % med("fstools-" + boot, "kernel_ms")))
        rows.append(("OpenWrt %s boot, through strata" % boot, "%.0f ms" % st,
                     "ratio %.2f (target <= 1.0); kernel until /init %.0f ms, strata %.0f ms "
                     "(verifying the root), then procd" % (
                         st / f, med("strata-" + boot, "kernel_ms"),
                         med("strata-" + boot, "assembly_ms"))))
    return rows, runs


def strata_binary(args):
    """The NOR board's static strata as the Makefile builds it (LTO, stripped), or
    --strata's: (path, build directory or None, the stripped size make printed)"""
    if args.strata:
        return os.path.abspath(args.strata), None, os.path.getsize(args.strata)
    o = os.path.join(args.out, "strata-nor")
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "qemu_x86_64_nor_defconfig"],
                          stdout=subprocess.DEVNULL)
    out = subprocess.check_output(["make", "-C", TOP, "O=" + o, "strata"], text=True)
    m = re.search(r"STRIP\s+strata: (\d+) bytes", out)
    build = os.path.join(o, "build")
    size = int(m.group(1)) if m else os.path.getsize(os.path.join(build, "strata"))
    return os.path.join(build, "strata"), build, size


def random_file(path, mib):
    if not os.path.exists(path) or os.path.getsize(path) != mib << 20:
        with open("/dev/urandom", "rb") as src, open(path + ".tmp", "wb") as f:
            for _ in range(mib):
                f.write(src.read(1 << 20))
        os.rename(path + ".tmp", path)
    return path


def update_setup(d, mib):
    """d/image-N (N MiB, random), its signed bundle d/bundle-N, and d/update.conf
    (no bootenv: the install only writes slot B's target, d/target)"""
    d = os.path.realpath(d)  # update.conf names real paths: strata follows no symlink
    os.makedirs(os.path.join(d, "keys"), exist_ok=True)
    subprocess.check_call([os.path.join(TOP, "tools/mkbundle.sh"), "--new-key",
                           os.path.join(d, "key")], stdout=subprocess.DEVNULL)
    shutil.copy(os.path.join(d, "key", "strata.pub"), os.path.join(d, "keys", "strata.pub"))
    open(os.path.join(d, "version"), "w").write("1\n")
    conf = os.path.join(d, "update.conf")
    open(conf, "w").write("compatible bench\nkeys %s/keys\nversion %s/version\n"
                          "slot A rootfs %s/target-a\nslot B rootfs %s/target\n" % ((d,) * 4))
    image = random_file(os.path.join(d, "image-%d" % mib), mib)
    bundle = os.path.join(d, "bundle-%d" % mib)
    if not os.path.exists(bundle) or os.path.getmtime(bundle) < os.path.getmtime(image):
        subprocess.check_call([os.path.join(TOP, "tools/mkbundle.sh"), "-k",
                               os.path.join(d, "key", "strata.sec"), "-c", "bench", "-v", "2",
                               "-o", bundle, "rootfs=" + image])
    return image, bundle, conf, os.path.join(d, "target")


def run_wall(argv, stdin_file=None):
    """wall seconds of argv (stdin_file: fed through `cat FILE |`)"""
    t0 = time.monotonic()
    if stdin_file:
        cat = subprocess.Popen(["cat", stdin_file], stdout=subprocess.PIPE)
        p = subprocess.Popen(argv, stdin=cat.stdout, stdout=subprocess.DEVNULL)
        cat.stdout.close()
        rc = p.wait() | cat.wait()
    else:
        rc = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.monotonic() - t0
    if rc:
        sys.exit("bench: %s failed" % " ".join(argv))
    return t


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def update_bench(args, strata):
    """strata update install of one N MiB image into a regular file (from the bundle
    file and from a pipe) against dd of the same bytes to the same file; its peak RSS
    from a pipe for two bundle sizes. Medians of --update-runs runs."""
    d = os.path.join(args.out, "update")
    image, bundle, conf, target = update_setup(d, args.update_mib)
    size = args.update_mib << 20
    with open(target, "wb") as f:  # preallocated and written once: every run overwrites
        f.write(open(image, "rb").read())
    # every run in a private /run with a data directory, where the install records what the
    # new slot carries (dd too, so that both pay for the namespace)
    private = ["unshare", "-m", "sh", "-c", "mount -t tmpfs strata /run && "
               "mkdir -p /run/strata/data && exec \"$@\"", "sh"]
    install = private + [strata, "update", "install", "--slot", "B", "--config", conf]
    kinds = (
        ("strata install BUNDLE", install + [bundle], None),
        ("cat BUNDLE | strata install -", install + ["-"], bundle),
        ("dd bs=64K conv=fsync", private + ["dd", "if=" + image, "of=" + target, "bs=64K",
                                            "conv=fsync"], None),
        ("dd bs=64K conv=notrunc,fsync", private + ["dd", "if=" + image, "of=" + target,
                                                    "bs=64K", "conv=notrunc,fsync"], None),
    )
    runs = {k: [] for k, _, _ in kinds}
    for _ in range(args.update_runs):
        for name, argv, stdin_file in kinds:
            if args.update_drop_caches:
                drop_caches()
            else:  # warm: the source in the page cache, nothing dirty left to flush
                subprocess.check_call(["cat", image, bundle], stdout=subprocess.DEVNULL)
                os.sync()
            runs[name].append(run_wall(argv, stdin_file))
    if subprocess.call(["cmp", "-s", image, target]):
        sys.exit("bench: the target does not hold the image after the runs")
    rss = {}
    for mib in sorted({16, args.update_mib}):
        _, b, _, _ = update_setup(d, mib)
        with open(target, "r+b") as f:
            if os.path.getsize(target) < mib << 20:
                f.truncate(mib << 20)
        out = os.path.join(d, "rss.txt")
        run_wall(install[:len(private)] + ["/usr/bin/time", "-f", "%M", "-o", out] +
                 install[len(private):] + ["-"], b)
        rss[mib] = int(open(out).read().split()[-1])
    med = {k: statistics.median(v) for k, v in runs.items()}
    mbs = lambda t: size / 1e6 / t  # noqa: E731
    dd = med["dd bs=64K conv=notrunc,fsync"]
    rows = [("update install", "%d MiB image" % args.update_mib,
             "into a regular file (ext4), fsync; medians of %d runs; %s" % (
                 args.update_runs, "caches dropped before each" if args.update_drop_caches
                 else "source in the page cache"))]
    for name, _, _ in kinds:
        rows.append((name, "%.0f MB/s" % mbs(med[name]),
                     "%.3f s; ratio to dd notrunc %.2f%s" % (
                         med[name], dd / med[name],
                         ", target >= 0.8" if name.startswith(("strata", "cat")) else "")))
    for mib, kb in sorted(rss.items()):
        rows.append(("install peak RSS, %d MiB bundle, stdin" % mib, "%d KiB" % kb,
                     "GNU time %M; target < 2048 KiB"))
    return rows, {"seconds": runs, "mib": args.update_mib, "rss_kb": rss,
                  "drop_caches": args.update_drop_caches}


# What each part of the binary is, by source file (fnmatch, relative to the tree,
# the first matching row wins); a file no row names is counted as "other".
PARTS = (
    ("updates", ("init/cmd/update.c", "init/lib/bundle.c", "init/lib/bootenv.c",
                 "init/lib/slots.c", "init/lib/ed25519.c", "init/lib/sha512.c",
                 "init/lib/signify.c")),
    ("verity", ("init/lib/fsverity.c", "init/lib/dmverity.c", "init/lib/manifest.c",
                "init/boot/verity.c", "init/boot/dmverity.c", "init/lib/store.c")),
    ("reset and revert", ("init/boot/layers.c", "init/lib/request.c", "init/cmd/reset.c")),
    ("reset button", ("init/boot/button.c", "init/boot/buttondev.c", "init/lib/buttonfsm.c",
                      "init/cmd/button.c")),
    ("boot record and outcome", ("init/boot/bootrec_write.c", "init/lib/bootrec.c",
                                 "init/boot/outcome.c", "init/boot/record_io.c",
                                 "init/lib/record.c")),
    ("flash and upper", ("init/boot/flash.c", "init/boot/ubi.c", "init/boot/upper.c",
                         "init/lib/flashid.c", "init/lib/mtd.c", "init/lib/caps.c")),
    ("boot sequence", ("init/main.c", "init/boot/*.c", "init/lib/modules.c", "init/lib/opts.c",
                       "init/lib/ovl.c", "init/lib/lowers.c", "init/lib/inroot.c")),
    ("other commands", ("init/cmd/*.c", "init/lib/inspect.c", "init/lib/json.c")),
    ("allocator", ("init/malloc.c",)),
    ("printf", ("init/printf.c", "init/lib/format.c")),
    ("helpers", ("init/lib/safefs.c", "init/lib/strbuf.c", "init/lib/util.c")),
)


def part_of(rel):
    for name, globs in PARTS:
        if any(fnmatch.fnmatch(rel, g) for g in globs):
            return name
    return "other"


def binary_bench(args, build):
    """The stripped LTO binary, and each source compiled alone with the target's flags
    without LTO, `size` text+data summed per part (PARTS)."""
    o = build and os.path.dirname(build)
    if not o:  # --strata given: the NOR configuration's flags all the same
        o = os.path.join(args.out, "strata-nor")
        subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "qemu_x86_64_nor_defconfig"],
                              stdout=subprocess.DEVNULL)
        subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "strata"],
                              stdout=subprocess.DEVNULL)
        build = os.path.join(o, "build")
    words = shlex.split(subprocess.check_output(
        ["make", "-s", "-C", TOP, "O=" + o, "print-target-flags"], text=True))
    cc = words[0]
    flags = [w for w in words[1:] if not w.startswith(("-flto", "-Wl,")) and w != "-static"]
    size_tool = subprocess.check_output([cc, "-print-prog-name=size"], text=True).strip()
    objdir = os.path.join(args.out, "objects")
    os.makedirs(objdir, exist_ok=True)
    srcs = sorted(glob.glob(os.path.join(TOP, "init", "**", "*.c"), recursive=True))
    objs = {}
    for src in srcs:
        rel = os.path.relpath(src, TOP)
        obj = os.path.join(objdir, rel.replace("/", "_")[:-2] + ".o")
        subprocess.check_call([cc] + flags + ["-c", "-o", obj, src])
        objs[rel] = obj
    sizes = {}
    for line in subprocess.check_output([size_tool] + list(objs.values()),
                                        text=True).splitlines()[1:]:
        text, data = (int(x) for x in line.split()[:2])
        sizes[line.split()[-1]] = text + data
    parts = {}
    for rel, obj in objs.items():
        parts.setdefault(part_of(rel), []).append((rel, sizes[obj]))
    total = sum(sizes.values())
    # the same objects linked as the Makefile links (gc-sections), without LTO, stripped
    nolto = os.path.join(objdir, "strata-nolto")
    subprocess.check_call([cc] + [w for w in words[1:] if not w.startswith("-flto")] +
                          ["-o", nolto] + list(objs.values()))
    subprocess.check_call([subprocess.check_output([cc, "-print-prog-name=strip"],
                                                   text=True).strip(),
                           "-s", "-R", ".comment", nolto])
    lto = os.path.getsize(os.path.join(build, "strata"))
    rows = [("strata stripped, LTO (make strata)", "%d bytes" % lto,
             "qemu_x86_64_nor, %s" % cc),
            ("strata stripped, no LTO", "%d bytes" % os.path.getsize(nolto),
             "the objects below linked with the same flags"),
            ("objects, text+data, no LTO", "%d bytes" % total,
             "each init/ source alone; musl's code is not in them")]
    for name in sorted(parts, key=lambda n: -sum(s for _, s in parts[n])):
        n = sum(s for _, s in parts[name])
        rows.append(("  %s" % name, "%d bytes" % n, "%.1f%%: %s" % (
            100.0 * n / total, " ".join("%s %d" % (r[len("init/"):], s)
                                       for r, s in sorted(parts[name], key=lambda x: -x[1])))))
    return rows, {"lto": lto, "nolto": os.path.getsize(nolto),
                  "parts": {k: dict(v) for k, v in parts.items()}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--board", default="qemu_x86_64_nor")
    ap.add_argument("--boots", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1, help="boots at once; 1 keeps timings clean")
    ap.add_argument("--reset-boots", type=int, default=3, help="0 skips the reset figures")
    ap.add_argument("--digest-mib", type=int, default=512, help="0 skips the digest figures")
    ap.add_argument("--digest-runs", type=int, default=3)
    ap.add_argument("--stack-runs", type=int, default=5, help="0 skips the stack figures")
    ap.add_argument("--size-boots", type=int, default=3,
                    help="boots per root size and mode; 0 skips the size figures")
    ap.add_argument("--openwrt-boots", type=int, default=5,
                    help="boots of each OpenWrt boot kind; 0 skips the incumbent figures")
    ap.add_argument("--update-mib", type=int, default=128,
                    help="image size of the install figures (host only); 0 skips them")
    ap.add_argument("--update-runs", type=int, default=5)
    ap.add_argument("--slot-boots", type=int, default=5,
                    help="boots with and without a slot each (NOR); 0 skips the slot figures")
    ap.add_argument("--update-drop-caches", action="store_true",
                    help="drop the page cache before each install and dd (root)")
    ap.add_argument("--strata", help="the static strata to install with (default: "
                    "built for qemu_x86_64_nor in OUT/strata-nor)")
    ap.add_argument("--only", choices=("stack", "size", "openwrt", "slots", "update", "binary"),
                    help="only these figures (quick; update and binary: host only)")
    args = ap.parse_args()
    if args.only in ("update", "binary"):
        strata, build, _ = strata_binary(args)
        rows, _ = update_bench(args, strata) if args.only == "update" \
            else binary_bench(args, build)
        w = max(len(r[0]) for r in rows)
        sys.stdout.write("\n".join("%-*s  %-14s %s" % (w, a, b, c) for a, b, c in rows) + "\n")
        return
    o = os.path.join(args.out, args.board)
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, args.board + "_defconfig"])
    subprocess.check_call(["make", "-s", "-C", TOP, "O=" + o, "all"], stdout=subprocess.DEVNULL)
    images, build = os.path.join(o, "images"), os.path.join(o, "build")
    if args.only:
        rows, runs = (stack_bench(args, images) if args.only == "stack"
                      else openwrt_bench(args, images) if args.only == "openwrt"
                      else slot_bench(args, images) if args.only == "slots"
                      else size_bench(args, args.board))
        w = max(len(r[0]) for r in rows)
        sys.stdout.write("\n".join("%-*s  %-14s %s" % (w, a, b, c) for a, b, c in rows) + "\n")
        return
    # the board kernel (everything built in): strata and the shell preinit
    shimg_board = os.path.join(o, "images-shell")
    shell_images(build, images, shimg_board)
    # Debian's modular kernel: strata with the modules as Debian ships them
    # (.ko.xz) and stored plain (.ko), each beside the shell doing the same
    images_xz = build_images(o + "-xz", args.board, ["KERNEL=modular", "CONFIG_STRATA_MODULES_XZ=y"])
    images_ko = build_images(o + "-ko", args.board, ["KERNEL=modular", "CONFIG_STRATA_MODULES_XZ="])
    # the old reference: the kernel decompresses every module
    shimg = os.path.join(o + "-xz", "images-shell")
    shell_images(os.path.join(o + "-xz", "build"), images_xz, shimg)
    # the reference: modules stored plain inside the compressed initramfs
    shimg_ko = os.path.join(o + "-ko", "images-shell")
    shell_images(os.path.join(o + "-ko", "build"), images_ko, shimg_ko, plain=True)

    work = os.path.join(o, "bench-work")
    shutil.rmtree(work, ignore_errors=True)
    jobs = []
    for i in range(args.boots):
        jobs.append(("strata", images_xz, os.path.join(work, "strata-%d" % i)))
        jobs.append(("strata-ko", images_ko, os.path.join(work, "strata-ko-%d" % i)))
        jobs.append(("shell", shimg, os.path.join(work, "shell-%d" % i)))
        jobs.append(("shell-ko", shimg_ko, os.path.join(work, "shell-ko-%d" % i)))
        jobs.append(("strata-board", images, os.path.join(work, "strata-board-%d" % i)))
        jobs.append(("shell-board", shimg_board, os.path.join(work, "shell-board-%d" % i)))
    res = {k: [] for k in ("strata", "strata-ko", "shell", "shell-ko", "strata-board",
                           "shell-board")}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for (kind, _, _), r in zip(jobs, ex.map(lambda j: boot_once(kind=j[0].split("-")[0],
                                                                   images=j[1], work=j[2]),
                                                jobs)):
            res[kind].append(r)

    med = lambda kind, key: statistics.median(r[key] for r in res[kind])  # noqa: E731
    strata_ms, strata_kmsg = med("strata", "ms"), med("strata", "kmsg_ms")
    shell_ms = med("shell", "kmsg_ms")
    ko_kmsg, shell_ko_ms = med("strata-ko", "kmsg_ms"), med("shell-ko", "kmsg_ms")
    phases = {}
    for kind in ("strata", "strata-ko"):
        for name in res[kind][0]["phases"]:
            phases.setdefault(kind, []).append(
                (name, statistics.median(r["phases"].get(name, 0) for r in res[kind])))
    binary = os.path.getsize(os.path.join(build, "strata"))
    initramfs = [f for f in os.listdir(images) if f.startswith("initramfs.cpio")][0]
    board_images, images = images, images_xz  # the rows below name the .ko.xz figures "strata"
    board_kmsg, shell_board = med("strata-board", "kmsg_ms"), med("shell-board", "kmsg_ms")
    rows = [
        ("board", args.board, ""),
        ("boots per variant", str(args.boots),
         "QEMU TCG, %d in parallel; each a device's second boot" % args.jobs),
        ("kernel to init, board kernel", "%.0f ms" % med("strata-board", "kernel_ms"),
         "median; the kernel's clock at strata's first line; target <= 1000"),
        ("kernel to init, Debian's kernel", "%.0f ms" % med("strata", "kernel_ms"),
         "median; linux-image-6.12-amd64, initramfs with .ko.xz modules"),
        ("strata assembly, board kernel (kmsg)", "%.1f ms" % board_kmsg, "median"),
        ("busybox-shell preinit, board kernel (kmsg)", "%.1f ms" % shell_board,
         "median; no verification; ratio strata / shell %.2f" % (board_kmsg / shell_board)),
        ("initramfs, board kernel", "%d bytes" % os.path.getsize(os.path.join(
            images, [f for f in os.listdir(images) if f.startswith("initramfs.cpio")][0])),
         "strata, its lists, the emergency shell's busybox"),
        ("strata assembly (exec_ns - init_start_ns)", "%.1f ms" % strata_ms, "median"),
        ("strata assembly (kmsg timestamps)", "%.1f ms" % strata_kmsg, "median"),
        ("busybox-shell preinit, .ko.xz (kmsg)", "%.1f ms" % shell_ms,
         "median; the old reference: the kernel decompresses every module"),
        ("ratio strata / that shell", "%.2f" % (strata_kmsg / shell_ms), ""),
        ("busybox-shell preinit, .ko (kmsg)", "%.1f ms" % shell_ko_ms,
         "median; the reference: modules plain in the compressed initramfs, no verification"),
        ("strata, .ko (kmsg)", "%.1f ms" % ko_kmsg, "median; CONFIG_STRATA_MODULES_XZ=n"),
        ("ratio strata / reference (.ko.xz strata)", "%.2f" % (strata_kmsg / shell_ko_ms),
         "target <= 0.50"),
        ("ratio strata / reference (.ko strata)", "%.2f" % (ko_kmsg / shell_ko_ms),
         "target <= 0.50"),
        ("strata own CPU time (user)", "%.1f ms" % med("strata", "user_ms"),
         "%.1f%% of wall" % (100 * med("strata", "user_ms") / strata_ms)),
        ("kernel CPU on strata's behalf (sys)", "%.1f ms" % med("strata", "sys_ms"),
         "module decompression and loading, mounts; 2 loader threads"),
        ("strata peak RSS (VmHWM)", "%d KiB" % max(r["rss_kb"] for r in res["strata"]),
         "target < 1024 KiB"),
        ("strata stripped static binary", "%d bytes" % binary, "target <= 163840"),
        ("initramfs (%s)" % initramfs, "%d bytes" % os.path.getsize(os.path.join(images, initramfs)), ""),
    ]
    for kind in ("strata", "strata-ko"):
        rows.append(("%s phases (median ms)" % kind,
                     " ".join("%s=%.0f" % (n, v) for n, v in phases[kind]), ""))
    rows.append(("initramfs with .ko modules", "%d bytes" % os.path.getsize(
        os.path.join(images_ko, initramfs)), ""))
    vbytes = med("strata", "verity_bytes")
    if vbytes:
        vms = med("strata", "verity_ms")
        rows.append(("layer verification at boot", "%.1f ms" % vms,
                     "median; %.2f MiB of layers: %.1f ms per MiB (TCG, portable SHA-256)"
                     % (vbytes / 2**20, vms / (vbytes / 2**20))))
    digest_rows, digest_runs = digest_bench(args) if args.digest_mib else ([], {})
    rows += digest_rows
    reset_rows, reset_runs = reset_bench(args) if args.reset_boots else ([], {})
    rows += reset_rows
    openwrt_rows, openwrt_runs = openwrt_bench(args, board_images) if args.openwrt_boots \
        else ([], {})
    rows += openwrt_rows
    stack_rows, stack_runs = stack_bench(args, images) if args.stack_runs else ([], {})
    rows += stack_rows
    slot_rows, slot_runs = slot_bench(args, board_images) \
        if args.slot_boots and args.board == "qemu_x86_64_nor" else ([], {})
    rows += slot_rows
    size_rows, size_runs = size_bench(args, args.board) if args.size_boots else ([], {})
    rows += size_rows
    strata, strata_build, _ = strata_binary(args)
    update_rows, update_runs = update_bench(args, strata) if args.update_mib else ([], {})
    rows += update_rows
    binary_rows, binary_runs = binary_bench(args, strata_build)
    rows += binary_rows
    w = max(len(r[0]) for r in rows)
    text = "\n".join("%-*s  %-14s %s" % (w, a, b, c) for a, b, c in rows) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(args.out, "bench.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"board": args.board, "results": res, "reset": reset_runs,
                   "digest": digest_runs, "stack": stack_runs, "size": size_runs,
                   "openwrt": openwrt_runs, "slots": slot_runs, "update": update_runs,
                   "binary": binary_runs}, f, indent=1)
    print("written to %s/bench.txt and bench.json" % args.out)


if __name__ == "__main__":
    main()
