# SPDX-License-Identifier: GPL-2.0-only
"""Hostile-content campaign: what anything on the device may leave on the data
flash, at every name strata reads or writes there. For each case the device
must reach its shell in bounded time, keep every acknowledged change unless a
reset was asked, and apply a reset that was asked. Each case adds a row (case,
survived, lost) to the campaign table that tests/report.sh prints
(TEST_OUT/hostile.txt)."""
import json
import os
import time

from scenario import scenario

NOR = "qemu_x86_64_nor"
NAND = "qemu_x86_64_nand"
EMMC = "qemu_x86_64_emmc"
DATA = "/run/strata/data"
BOOT_TIMEOUT = 90  # a PID 1 blocked on the flash never gets there
# /dev/random returns once the CRNG is ready, and the kernel then flips its
# crng_is_ready static key from a workqueue: reading /dev/urandom while that code
# is being patched can hit a stale int3 under TCG (an emulator oops, seen in
# urandom_read_iter), so the patching gets a second to finish first
SETTLED = "head -c 1 /dev/random > /dev/null && sleep 1"
RANDOM = SETTLED + " && dd if=/dev/urandom"


# tests/unit/test_layers.c plants every kind at every name (strata.state among them) on the
# three stack layouts in seconds; the boots here prove it on the real flash filesystems.
# make check boots each case on one flash kind (NOR the even ones, NAND the odd ones);
# make check-hostile (HOSTILE_SWEEP=full) boots every case on both.
FULL_SWEEP = os.environ.get("HOSTILE_SWEEP") == "full"


def sample(ctx, cases):
    return cases if FULL_SWEEP else cases[0 if ctx.board == NOR else 1::2]


def user_base(ctx):
    """Where the user layer's generations live (NAND: a volume of its own)."""
    return "/run/strata/userdata" if ctx.board == NAND else DATA


def record(vm):
    return json.loads(vm.out("cat /run/strata/boot.json"))


def reboot(dev, vm):
    vm.poweroff()
    vm = dev.boot(timeout=BOOT_TIMEOUT)
    vm.sh("true")
    assert "(strata emergency)" not in vm.text[-300:], vm.text[-2000:]
    return vm


class Markers:
    """Acknowledged changes, one pair (user layer, system layer) per round."""

    def __init__(self, vm):
        self.vm, self.n = vm, 0

    def write(self):
        self.n += 1
        self.vm.sh("echo u%d > /root/mark%d && echo s%d > /run/strata/system/etc/mark%d && sync"
                   % (self.n, self.n, self.n, self.n))

    def count(self, vm):
        """(kept, lost) over every marker written so far."""
        self.vm = vm
        kept = 0
        for i in range(1, self.n + 1):
            got = vm.out("cat /root/mark%d /run/strata/system/etc/mark%d 2>/dev/null | "
                         "tr '\\n' ' '" % (i, i))
            kept += 2 if got == "u%d s%d" % (i, i) else 1 if got else 0
        return kept, 2 * self.n - kept

    def forget(self):
        self.n = 0


def exists(vm, path):
    return vm.sh("test -e %s || test -L %s" % (path, path), check=False)[0] == 0


def kind(vm, path):
    return vm.out("stat -c %%F %s 2>&1" % path)


def button_daemon_watching(vm, timeout=60):
    """The reset button's daemon got past its config file and watches the key."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "key 88 on 1 device" in vm.sh("dmesg | grep 'strata: button: key'", check=False)[1]:
            return True
        time.sleep(1)
    return False


def case_row(ctx, case, kept, lost, ok, note=""):
    ctx.hostile_row("%s (%s)" % (case, ctx.board.split("_")[-1]), kept, lost,
                    ("" if ok else "FAILED: ") + note)


# What sits at strata.state: each must leave every generation in place, rebuild the state
# from the flash, and say so (boot.json, console, status exit 1).
BAD_STATES = [
    ("strata.state garbage", "printf 'system x\\nuser\\n' > %(d)s/strata.state"),
    ("strata.state empty", ": > %(d)s/strata.state"),
    ("strata.state missing", "rm -f %(d)s/strata.state"),
    ("strata.state a FIFO", "rm -f %(d)s/strata.state && mkfifo %(d)s/strata.state"),
    ("strata.state a symlink to /dev/zero",
     "rm -f %(d)s/strata.state && ln -s /dev/zero %(d)s/strata.state"),
    ("strata.state a directory",
     "rm -f %(d)s/strata.state && mkdir %(d)s/strata.state && echo x > %(d)s/strata.state/f"),
    ("strata.state oversized", "yes 'system 2' | head -c 70000 > %(d)s/strata.state"),
    ("strata.state applied at ULONG_MAX",
     "printf 'system 2\\nuser 2\\napplied 18446744073709551615\\n' > %(d)s/strata.state"),
]


@scenario(NOR, NAND)
def hostile_state_never_discards_a_generation(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    # generation 2 of both layers: a state that falls back to 1 would hide (and trash) them
    vm.sh("strata reset --full -y")
    vm = reboot(dev, vm)
    assert record(vm)["generations"] == {"system": 2, "user": 2}
    marks = Markers(vm)
    for case, plant in sample(ctx, BAD_STATES):
        marks.write()
        vm.sh(plant % {"d": DATA} + " && sync")
        vm = reboot(dev, vm)
        rec = record(vm)
        kept, lost = marks.count(vm)
        rc, status = vm.sh("strata status", check=False)
        said = rec.get("state_repaired", "") != "" and "REPAIRED" in status and rc == 1 and \
            "strata.state" in vm.out("dmesg | grep 'live generations taken from the flash'")
        ok = lost == 0 and said and rec["generations"] == {"system": 2, "user": 2} and \
            kind(vm, DATA + "/strata.state") == "regular file"
        case_row(ctx, case, kept, lost, ok, rec.get("state_repaired", "")[:60])
        assert ok, (case, kept, lost, rec["generations"], rec.get("state_repaired", ""), status)
    # the repaired state is read back: a clean boot, nothing set aside that was live
    vm = reboot(dev, vm)
    rc, status = vm.sh("strata status", check=False)
    assert rc == 0 and record(vm)["state_repaired"] == "", status
    assert marks.count(vm) == (2 * marks.n, 0)
    # an asked reset still works on the repaired device
    vm.sh("strata reset --full -y")
    vm = reboot(dev, vm)
    assert not exists(vm, "/root/mark1") and record(vm)["request_applied"] == "reset --full"


def names_cases(ctx):
    """(case, plant command, whether a reset --full is asked after planting, check)"""
    ub = user_base(ctx)
    return [
        ("strata.request a FIFO", "mkfifo %s/strata.request" % DATA, False,
         lambda vm, rec: rec["request_applied"] == "malformed" and
         not exists(vm, DATA + "/strata.request")),
        ("strata.caps a FIFO", "rm -f %s/strata.caps && mkfifo %s/strata.caps" % (DATA, DATA),
         False, lambda vm, rec: kind(vm, DATA + "/strata.caps") == "regular file"),
        ("capability probe's file a symlink to a user file",
         "echo victim > /root/victim && sync && rm -f %(d)s/strata.caps && "
         "ln -s %(ub)s/user.1/upper/root/victim %(d)s/system.1/work/.strata-probe-a"
         % {"d": DATA, "ub": ub}, False,
         lambda vm, rec: vm.out("cat /root/victim") == "victim"),
        ("live work directory a regular file",
         "rm -rf %s/system.1/work && echo junk > %s/system.1/work" % (DATA, DATA), False,
         lambda vm, rec: rec["mode"] == "normal" and
         kind(vm, DATA + "/system.1/work") == "directory"),
        ("live work directory a symlink to /",
         "rm -rf %(d)s/system.1/work && ln -s / %(d)s/system.1/work" % {"d": DATA}, False,
         lambda vm, rec: rec["mode"] == "normal" and
         kind(vm, DATA + "/system.1/work") == "directory" and
         "symbolic link" in vm.out("stat -c %%F %s/strata.recovered/* 2>&1" % DATA)),
        ("/etc/strata/button a FIFO in the user layer",
         "rm -f /etc/strata/button && mkfifo /etc/strata/button", False,
         lambda vm, rec: button_daemon_watching(vm)),
        ("strata.request.tmp a directory, reset asked",
         "mkdir -p %s/strata.request.tmp/d && echo x > %s/strata.request.tmp/d/f" % (DATA, DATA),
         True, None),
        ("strata.state.tmp a directory and a FIFO at .bad, reset asked",
         "mkdir -p %s/strata.state.tmp/d && mkfifo %s/strata.request.bad" % (DATA, DATA),
         True, None),
        ("strata.trash a FIFO, next generation junk, reset asked",
         "rm -rf %(d)s/strata.trash; mkfifo %(d)s/strata.trash && mkfifo %(ub)s/user.2 && "
         "mkdir -p %(ub)s/user.7/upper %(ub)s/user.0 %(ub)s/user.99999999999 %(d)s/system.x"
         % {"d": DATA, "ub": ub}, True, None),
    ]


# Every name strata reads or writes at the top of the data filesystem, and each kind
# of thing anything on the device could leave there.
NAMES = ["strata.state", "strata.caps", "strata.request", "strata.request.bad",
         "strata.state.tmp", "strata.request.tmp", "strata.caps.tmp", "strata.trash",
         "strata.recovered", "strata.reserve", "strata.reserve.tmp"]
KINDS = [
    ("a FIFO", "mkfifo %(p)s"),
    ("a symlink to a device", "ln -s /dev/zero %(p)s"),
    ("a directory", "mkdir -p %(p)s/d && echo x > %(p)s/d/f"),
    ("an empty file", ": > %(p)s"),
    ("garbage", "head -c 300 /dev/urandom > %(p)s"),
    ("an oversized file", "yes 'system 1' | head -c 70000 > %(p)s"),
]


def plant_everywhere(vm, how, names):
    vm.sh(SETTLED + "; cd %s && for n in %s; do rm -rf $n; done && %s "
          "&& sync; cd /" % (DATA, " ".join(names),
                            " && ".join(how % {"p": n} for n in names)))


@scenario(NOR, NAND)
def hostile_every_kind_at_every_name(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    marks = Markers(vm)
    for what, how in sample(ctx, KINDS):
        # left there on its own: the device boots normally and loses nothing
        marks.write()
        plant_everywhere(vm, how, NAMES)
        vm = reboot(dev, vm)
        rec = record(vm)
        kept, lost = marks.count(vm)
        ok = rec["mode"] == "normal" and lost == 0 and rec["request_applied"] == "malformed"
        case_row(ctx, "%s at every name" % what, kept, lost, ok,
                 "booted, nothing lost" if ok else "mode %s, request %s"
                 % (rec["mode"], rec["request_applied"]))
        assert ok, (what, kept, lost, rec["mode"], rec["request_applied"])
        # and a reset asked over it is applied
        plant_everywhere(vm, how, [n for n in NAMES if n != "strata.request"])
        rc, out = vm.sh("strata reset --full -y 2>&1", check=False)
        vm = reboot(dev, vm)
        rec = record(vm)
        kept, _ = marks.count(vm)
        ok = rc == 0 and rec["request_applied"] == "reset --full" and kept == 0
        case_row(ctx, "%s at every name, reset asked" % what, 0, 0, ok,
                 "reset applied" if ok else out[-60:] + rec.get("request_error", ""))
        assert ok, (what, rc, out, rec["request_applied"], rec.get("request_error", ""))
        marks.forget()


@scenario(NOR, NAND)
def hostile_names_at_the_top_of_the_flash(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    marks = Markers(vm)
    for case, plant, reset, check in names_cases(ctx):
        marks.write()
        vm.sh(plant + " && sync")
        if reset:
            rc, out = vm.sh("strata reset --full -y 2>&1", check=False)
            assert rc == 0, (case, out)
        vm = reboot(dev, vm)
        rec = record(vm)
        kept, lost = marks.count(vm)
        if reset:
            # the asked reset is applied whatever sat there; nothing of the old layers shows
            ok = rec["request_applied"] == "reset --full" and kept == 0
            note = "reset applied" if ok else "reset not applied: %s" % rec.get("request_error", "")
            lost = 0
            marks.forget()
        else:
            ok = lost == 0 and check(vm, rec)
            note = "booted, nothing lost" if ok else "mode %s" % rec["mode"]
        case_row(ctx, case, kept, lost, ok, note)
        assert ok, (case, kept, lost, rec)
        if reset:
            # next cases name generation 1: start the device over
            vm.poweroff()
            dev = ctx.machine("dev%d" % len(ctx.machines))
            vm = dev.boot()
            marks = Markers(vm)


@scenario(NOR, NAND)
def hostile_numbers_and_a_full_flash_do_not_stop_a_reset(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    ub = user_base(ctx)
    # generation numbers and the applied id at their limits
    vm.sh("echo keep > /root/keepme && echo old > /root/old && sync")
    vm.sh("mv %s/system.1 %s/system.1000000000 && mv %s/user.1 %s/user.1000000000 && "
          "printf 'system 1000000000\\nuser 1000000000\\napplied 999999999999999\\n' > "
          "%s/strata.state && sync" % (DATA, DATA, ub, ub, DATA))
    vm = reboot(dev, vm)
    assert vm.out("cat /root/old") == "old", "generations at the limit not mounted"
    vm.sh("strata reset --full -y -k /root/keepme")
    vm = reboot(dev, vm)
    rec = record(vm)
    ok = rec["request_applied"] == "reset --full" and not exists(vm, "/root/old") and \
        vm.out("cat /root/keepme") == "keep" and rec["generations"] == {"system": 1, "user": 1}
    case_row(ctx, "generations and request id at their limits, reset asked", 1 if ok else 0, 0,
             ok, "wrapped to %s" % rec["generations"])
    assert ok, rec
    # the flash filled to the last byte, then a reset asked on the running system: the
    # device still boots to its shell and the request still fits (strata.reserve)
    vm.sh("echo keep1 > /root/keepme && echo old > /root/old && sync")
    rc, out = vm.sh(RANDOM + "  of=/root/fill bs=64k 2>&1; sync", timeout=600,
                    check=False)
    assert "No space left on device" in out, out
    vm = reboot(dev, vm)
    booted = record(vm)["mode"] == "normal" and vm.out("cat /root/old") == "old"
    rc, out = vm.sh("strata reset --full -y -k /root/keepme 2>&1", check=False)
    vm = reboot(dev, vm)
    rec = record(vm)
    rc2, df = vm.sh("df -k %s | tail -n 1" % ub, check=False)
    ok = booted and rc == 0 and rec["request_applied"] == "reset --full" and \
        not exists(vm, "/root/fill") and vm.out("cat /root/keepme") == "keep1" and \
        int(df.split()[3]) > 0
    case_row(ctx, "full flash, then a reset asked with a kept path", 1 if ok else 0, 0, ok,
             "booted full; request recorded; applied" if ok else out[-70:])
    assert ok, (booted, rc, out, rec.get("request_error", ""), df)
    # a reset asked, then the flash filled to the last byte
    vm.sh("echo keep2 > /root/keepme && echo old > /root/old && sync")
    vm.sh("strata reset --full -y -k /root/keepme")
    rc, out = vm.sh(RANDOM + "  of=/root/fill bs=64k 2>&1; sync", timeout=600,
                    check=False)
    assert "No space left on device" in out, out
    vm = reboot(dev, vm)
    rec = record(vm)
    rc, df = vm.sh("df -k %s | tail -n 1" % ub, check=False)
    ok = rec["request_applied"] == "reset --full" and not exists(vm, "/root/fill") and \
        vm.out("cat /root/keepme") == "keep2" and int(df.split()[3]) > 0
    case_row(ctx, "full flash, reset asked with a kept path", 1 if ok else 0, 0, ok,
             "applied, kept path kept" if ok else rec.get("request_error", ""))
    assert ok, (rec, df)
    vm.sh("echo after > /root/after && sync && test \"$(cat /root/after)\" = after")


@scenario(NOR, NAND)
def hostile_keeps_stay_inside_the_upper(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    # a kept path through a symlink would copy from wherever it points (the initramfs)
    vm.sh("ln -s /lib /root/x && echo mine > /root/plain && sync")
    # a kept file larger than a reset may copy
    free = int(vm.out("df -k %s | tail -n 1 | awk '{print $4}'" % user_base(ctx)))
    vm.sh(RANDOM + "  of=/root/big bs=1k count=%d 2>/dev/null; mkfifo /root/kd_fifo; "
          "mkdir -p /root/kd && mkfifo /root/kd/fifo && echo f > /root/kd/f && sync"
          % (free * 6 // 10))
    vm.sh("strata reset --full -y -k /root/x/modules -k /root/big -k /root/plain -k /root/kd")
    vm = reboot(dev, vm)
    rec = record(vm)
    rc, status = vm.sh("strata status", check=False)
    confined = not exists(vm, "/root/x") and "/root/x/modules" in rec.get("keep_failed", "")
    bounded = not exists(vm, "/root/big") and "/root/big" in rec.get("keep_failed", "")
    others = vm.out("cat /root/plain /root/kd/f | tr '\\n' ' '") == "mine f" and \
        not exists(vm, "/root/kd/fifo")
    said = rc == 1 and "NOT KEPT" in status
    ok = confined and bounded and others and said and rec["request_applied"] == "reset --full"
    case_row(ctx, "kept path through a symlink, oversized keep", 2 if others else 0, 0, ok,
             rec.get("keep_failed", "")[:70])
    assert ok, (confined, bounded, others, said, rec.get("keep_failed", ""), status)


@scenario(EMMC)
def hostile_entries_in_the_object_store_are_left_alone(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    store = DATA + "/objects"
    fan = vm.out("ls %s | head -n 1" % store)
    # the walk runs again when the stamp is not the metadata's digest: here, a FIFO
    vm.sh("mkfifo %(s)s/%(f)s/fifo && ln -s /dev/zero %(s)s/%(f)s/zero && mkdir %(s)s/%(f)s/dir && "
          "mkfifo %(s)s/top-fifo && ln -s / %(s)s/top-link && rm %(d)s/strata.verity && "
          "mkfifo %(d)s/strata.verity && sync" % {"s": store, "f": fan, "d": DATA})
    vm = reboot(dev, vm)
    rec = record(vm)
    stray = vm.out("dmesg | grep 'object store: .* stray'")
    ok = rec["mode"] == "normal" and "5 stray entries" in stray and \
        kind(vm, DATA + "/strata.verity") == "regular file" and \
        vm.out("head -n 1 /etc/os-release").startswith("NAME=")
    case_row(ctx, "FIFOs, symlinks, a directory among the objects; stamp a FIFO", 1 if ok else 0,
             0, ok, stray[-70:])
    assert ok, (rec["mode"], stray)
