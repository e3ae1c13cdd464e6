# SPDX-License-Identifier: GPL-2.0-only
"""QEMU scenario registry and runner: each scenario boots real images and
asserts on the running system; they run in parallel, one QEMU per core."""
import concurrent.futures
import glob
import importlib.util
import json
import os
import re
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm import Machine  # noqa: E402

SCENARIOS = []


# The other stacks as scenario parameters: every boot of the scenario gets
# the key on its kernel command line.
COLLAPSED = "strata.stack=system+user"  # both layers in one overlay
SINGLE = "strata.stack=system"  # one layer, OpenWrt's single overlay


def scenario(*boards, skip_unless=None, collapsed=(), single=()):
    """Registers fn(ctx) as a scenario on each of boards. skip_unless: callable
    returning None when the scenario can run here, else the reason to skip.
    collapsed, single: boards on which it also runs on the collapsed stack
    (NAME@collapsed, ctx.stack "system+user") or the one-layer stack
    (NAME@single, ctx.stack "system"); ctx.stack is otherwise "system user"."""
    def deco(fn):
        for board in boards:
            SCENARIOS.append({"name": fn.__name__, "board": board, "fn": fn,
                              "skip_unless": skip_unless, "append": ""})
        for suffix, append, on in (("@collapsed", COLLAPSED, collapsed),
                                   ("@single", SINGLE, single)):
            for board in on:
                SCENARIOS.append({"name": fn.__name__ + suffix, "board": board, "fn": fn,
                                  "skip_unless": skip_unless, "append": append})
        return fn
    return deco


class Context:
    def __init__(self, board, images, workdir, append=""):
        self.board = board
        self.images = images
        self.workdir = workdir
        self.machines = []
        self.append = append  # on every boot's kernel command line
        self.collapsed = append == COLLAPSED
        self.stack = {COLLAPSED: "system+user", SINGLE: "system"}.get(append, "system user")

    def machine(self, name="dev"):
        m = Machine(self.images, os.path.join(self.workdir, name), self.append)
        self.machines.append(m)
        return m

    def cleanup(self):
        """Every emulator a scenario started stops with it, pass or fail."""
        for m in self.machines:
            m.stop()

    @staticmethod
    def boot_record(vm):
        return json.loads(vm.out("cat /run/strata/boot.json"))

    @staticmethod
    def mounts(vm):
        """/proc/self/mountinfo as a list of dicts keyed mountpoint, fstype, source, options."""
        res = []
        for line in vm.out("cat /proc/self/mountinfo").splitlines():
            pre, _, post = line.partition(" - ")
            f, g = pre.split(), post.split()
            if len(f) < 6 or len(g) < 3:
                continue
            res.append({"mountpoint": f[4], "fstype": g[0], "source": g[1],
                        "options": f[5] + "," + g[2]})
        return res

    def fault_row(self, case, survived, lost, note=""):
        """One row of the fault campaign's table (tests/report.sh collects them)."""
        with open(os.path.join(self.workdir, "fault-row.txt"), "w") as f:
            f.write("%s\t%d\t%d\t%s\n" % (case, survived, lost, note))

    def hostile_row(self, case, survived, lost, note=""):
        """One row of the hostile-content campaign's table (a scenario may add several)."""
        with open(os.path.join(self.workdir, "hostile-rows.txt"), "a") as f:
            f.write("%s\t%d\t%d\t%s\n" % (case, survived, lost, note))

    def cut_power_at(self, pattern):
        """Boots a fresh device, cuts the power when the console shows pattern,
        and checks that the next boot is normal and keeps what is written."""
        dev = self.machine()
        vm = dev.boot(wait_shell=False)
        vm.expect(pattern, 90)
        vm.kill()
        vm = dev.boot()
        rec = self.boot_record(vm)
        self.fault_row("power cut during first boot (%s)" % self.board.split("_")[-1],
                       int(rec["mode"] == "normal"), int(rec["mode"] != "normal"), pattern)
        assert rec["mode"] == "normal", rec
        vm.sh("echo after-cut > /root/f && sync")
        vm.poweroff()
        vm = dev.boot()
        assert vm.out("cat /root/f") == "after-cut"
        assert self.boot_record(vm)["mode"] == "normal"

    def mount_at(self, vm, mountpoint):
        found = [m for m in self.mounts(vm) if m["mountpoint"] == mountpoint]
        assert found, "nothing mounted at %s" % mountpoint
        return found[-1]


def load_scenarios(directory):
    """Imports every scenario file; returns [(file, error)] for those that do
    not import (each a FAIL: a broken file must not make its scenarios vanish)."""
    broken = []
    for path in sorted(glob.glob(os.path.join(directory, "*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location("scenario_" + name, path)
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except Exception as e:  # noqa: BLE001 - any error of a scenario file is reported
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            broken.append((os.path.basename(path), detail.replace("\n", " ")))
    return broken


# The other face of the emulator fault vm.py retries before /init: QEMU 7.2's
# multi-threaded TCG runs a stale int3 after the guest kernel has patched a
# static key, later in the boot (an "Oops: int3" in crng_make_state or
# blk_cgroup_bio_start, then a panic). Nothing in user space can raise an int3
# in the kernel, so a scenario that failed with one in a console log is run
# again once from fresh flash copies, and said so; the first attempt's logs
# stay beside it.
EMULATOR_OOPS = re.compile(rb"Oops: int3\b")


def emulator_oopsed(workdir):
    for log in glob.glob(os.path.join(workdir, "**", "console-*.log"), recursive=True):
        with open(log, "rb") as f:
            if EMULATOR_OOPS.search(f.read()):
                return log
    return None


def run_one(sc, images_root, work_root):
    workdir = os.path.join(work_root, sc["board"], sc["name"])
    status, sc, detail, secs = run_attempt(sc, images_root, workdir)
    log = status == "FAIL" and emulator_oopsed(workdir)
    if log:
        print("note: %s: the guest kernel oopsed on an int3 (emulator); running %s again"
              % (log, sc["name"]), file=sys.stderr, flush=True)
        os.rename(workdir, workdir + ".emulator-oops")
        for row in glob.glob(os.path.join(workdir + ".emulator-oops", "*-row*.txt")):
            os.unlink(row)  # the campaign tables count the second attempt only
        status, sc, detail, secs2 = run_attempt(sc, images_root, workdir)
        secs += secs2
    return status, sc, detail, secs


# The contexts of the scenarios running now, so that one past its deadline
# has its emulators stopped by the main thread.
RUNNING = {}
RUNNING_LOCK = threading.Lock()


def run_attempt(sc, images_root, workdir):
    images = os.path.join(images_root, sc["board"], "images")
    os.makedirs(workdir, exist_ok=True)
    t0 = time.monotonic()
    if sc["skip_unless"]:
        reason = sc["skip_unless"]()
        if reason:
            return "SKIP", sc, reason, 0.0
    ctx = Context(sc["board"], images, workdir, sc["append"])
    with RUNNING_LOCK:
        RUNNING[id(sc)] = (ctx, time.monotonic())
    try:
        sc["fn"](ctx)
        return "PASS", sc, "", time.monotonic() - t0
    except Exception as e:  # noqa: BLE001 - any failure of a scenario is reported
        detail = "".join(traceback.format_exception_only(type(e), e)).strip()
        where = traceback.extract_tb(e.__traceback__)
        line = next((f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(where)
                     if "scenarios" in f.filename), "")
        return "FAIL", sc, f"{line} {detail}\n  logs: {workdir}", time.monotonic() - t0
    finally:
        with RUNNING_LOCK:
            RUNNING.pop(id(sc), None)
        ctx.cleanup()


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--images-root", required=True, help="DIR/<board>/images")
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-k", default="", help="regex on scenario names")
    ap.add_argument("--boards", default="", help="space-separated boards to run")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scenarios", help="directory of scenario files (default tests/scenarios)",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "scenarios"))
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds a scenario may run before it is a FAIL")
    args = ap.parse_args(argv)
    broken = load_scenarios(args.scenarios)
    boards = set(args.boards.split()) if args.boards else None
    todo = [s for s in SCENARIOS if (not boards or s["board"] in boards)
            and re.search(args.k, s["name"])]
    if args.list:
        for s in todo:
            print(s["board"], s["name"])
        for f, detail in broken:
            print("scenario file %s does not import: %s" % (f, detail), file=sys.stderr)
        return 1 if broken else 0
    counts = {"PASS": 0, "FAIL": len(broken), "SKIP": 0}
    for f, detail in broken:
        print("FAIL qemu/%s: does not import: %s" % (f, detail), flush=True)
    ex = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    futs = {ex.submit(run_one, s, args.images_root, args.work): s for s in todo}
    pending = set(futs)
    stuck = False
    while pending:
        done, pending = concurrent.futures.wait(
            pending, timeout=1, return_when=concurrent.futures.FIRST_COMPLETED)
        for f in done:
            try:
                status, sc, detail, secs = f.result()
            except Exception as e:  # noqa: BLE001 - the runner's own failure is a FAIL too
                status, sc, detail, secs = "FAIL", futs[f], "runner: %r" % e, 0.0
            counts[status] += 1
            msg = f"{status} qemu/{sc['board']}/{sc['name']} ({secs:.0f}s)"
            if detail:
                msg += ": " + detail
            print(msg, flush=True)
        now = time.monotonic()
        for f in list(pending):
            sc = futs[f]
            with RUNNING_LOCK:
                running = RUNNING.get(id(sc))
            if running and now - running[1] > args.timeout:
                pending.discard(f)
                stuck = True
                counts["FAIL"] += 1
                print(f"FAIL qemu/{sc['board']}/{sc['name']}: did not finish within "
                      f"{args.timeout:.0f}s; its emulators are stopped", flush=True)
                running[0].cleanup()
    print(f"qemu: {counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped",
          flush=True)
    rc = 1 if counts["FAIL"] else 0
    if stuck:
        os._exit(rc)  # a scenario's thread that never returns must not hold the suite
    ex.shutdown(wait=True)
    return rc


if __name__ == "__main__":
    # scenario files import this file as "scenario"; run that module's main so
    # they register with the same registry
    import scenario as registry
    sys.exit(registry.main(sys.argv[1:]))
