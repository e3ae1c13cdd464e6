# SPDX-License-Identifier: GPL-2.0-only
"""Nested overlays, factory reset, revert: requested at run time, applied offline, atomic.
The stack: the system overlay alone or the user overlay over it; deeper is refused."""
import json
import os
import shutil
import time

from scenario import scenario

NOR = "qemu_x86_64_nor"
NAND = "qemu_x86_64_nand"
ARM64 = "qemu_aarch64_virt"
EMMC = "qemu_x86_64_emmc"
ORIG_RELEASE = 'NAME="strata test root"'


def changes(vm):
    """A change in each layer: the system layer through /run/strata/system,
    the user layer through /."""
    vm.sh("echo provisioned > /run/strata/system/etc/sysfile")
    vm.sh("echo mine > /root/userfile && echo changed > /etc/os-release && rm /etc/group")
    vm.sh("sync")


def exists(vm, path):
    return vm.sh("test -e %s" % path, check=False)[0] == 0


def wait_trash_gone(vm):
    for _ in range(30):
        if not exists(vm, "/run/strata/data/strata.trash") and \
                not exists(vm, "/run/strata/userdata/strata.trash"):
            return
        time.sleep(1)
    raise AssertionError("old generations were not discarded")


def reboot(dev, vm, append=""):
    vm.poweroff()
    return dev.boot(append=append)


@scenario(NOR)
def system_layer_is_writable_and_nested(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    vm.sh("echo provisioned > /run/strata/system/etc/sysfile && sync")
    assert vm.out("cat /etc/sysfile") == "provisioned"  # seen through the user overlay
    vm = reboot(dev, vm)
    assert vm.out("cat /run/strata/data/system.1/upper/etc/sysfile") == "provisioned"
    assert not exists(vm, "/run/strata/data/user.1/upper/etc/sysfile")
    assert vm.out("cat /etc/sysfile") == "provisioned"


@scenario(NOR, ARM64, collapsed=(NOR,))
def reset_user_reveals_the_system_layer(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    assert "reset --user scheduled" in vm.out("strata reset --user -y")
    assert "pending:   reset --user at the next boot" in vm.out("strata status")
    vm = reboot(dev, vm)
    assert not exists(vm, "/root/userfile")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert exists(vm, "/etc/group")
    assert vm.out("cat /etc/sysfile") == "provisioned"
    rec = ctx.boot_record(vm)
    assert rec["generations"] == {"system": 1, "user": 2}, rec
    assert rec["request_applied"] == "reset --user", rec
    assert "pending" not in vm.out("strata status")
    wait_trash_gone(vm)
    assert vm.out("ls /run/strata/data | sort | tr '\\n' ' '") == \
        "strata.caps strata.reserve strata.state system.1 user.2", \
        vm.out("ls /run/strata/data")


@scenario(NOR, ARM64, collapsed=(NOR,))
def reset_full_keeps_listed_paths(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.sh("echo secret > /root/keepme && echo cert > /run/strata/system/etc/cert && sync")
    vm.sh("strata reset --full -y -k /root/keepme -k //etc/./cert -k /etc/group")
    vm = reboot(dev, vm)
    assert not exists(vm, "/root/userfile") and not exists(vm, "/etc/sysfile")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert vm.out("cat /root/keepme") == "secret"
    assert vm.out("cat /etc/cert") == "cert"
    # a kept deletion stays deleted: the whiteout was kept
    assert not exists(vm, "/etc/group")
    rec = ctx.boot_record(vm)
    assert rec["generations"] == {"system": 2, "user": 2}, rec
    assert exists(vm, "/run/strata/data/system.2/upper/etc/cert")


@scenario(NOR)
def firstboot_alias_reboots_into_the_reset(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.send("firstboot -y -r\n")
    vm.wait_exit(60)  # -no-reboot: the reboot ends QEMU
    vm = dev.boot()
    assert not exists(vm, "/etc/sysfile") and not exists(vm, "/root/userfile")
    assert ctx.boot_record(vm)["request_applied"] == "reset --full"


@scenario(NOR, collapsed=(NOR,))
def revert_brings_back_the_lower_versions(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.sh("echo new > /etc/init.d/added && echo keep > /root/other && sync")
    rc, out = vm.sh("strata revert /etc/os-release /etc/group /etc/init.d </dev/null 2>&1",
                    check=False)
    assert rc == 1 and "not on a terminal: pass -y" in out, out
    vm.sh("strata revert -y /etc/os-release /etc/group /etc/init.d")
    assert "pending:   revert at the next boot (request 1): /etc/os-release (user), " \
        "/etc/group (user), /etc/init.d (user)" in vm.out("strata status")
    vm = reboot(dev, vm)
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert exists(vm, "/etc/group")
    assert not exists(vm, "/etc/init.d/added") and exists(vm, "/etc/init.d/rcS")
    assert vm.out("cat /root/other") == "keep" and vm.out("cat /root/userfile") == "mine"
    # --system reverts the system layer
    vm.sh("strata revert -y --system /etc/sysfile")
    vm = reboot(dev, vm)
    assert not exists(vm, "/etc/sysfile")


@scenario(NOR)
def reset_cancel_and_prompt(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    # on the console (a terminal) it asks; "n" does nothing
    vm.send("strata reset --full\n")
    vm.expect(r"will be erased at the next boot. Continue\? \[y/N\] ")
    vm.send("n\n")
    vm.expect("nothing done")
    assert "pending" not in vm.out("strata status")
    vm.sh("strata reset --user -y")
    assert "pending request withdrawn" in vm.out("strata reset --cancel")
    vm = reboot(dev, vm)
    assert vm.out("cat /root/userfile") == "mine"
    assert ctx.boot_record(vm)["generations"] == {"system": 1, "user": 1}


@scenario(NOR)
def bad_paths_and_requests_are_refused(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    for arg in ("../etc", "/", "etc/group", "/etc/../../x"):
        rc, out = vm.sh("strata revert -y '%s' 2>&1" % arg, check=False)
        assert rc == 2 and "is not an absolute path inside the root" in out, (arg, out)
    rc, out = vm.sh("strata reset --user -y -k ../x 2>&1", check=False)
    assert rc == 2 and "cannot keep '../x'" in out, out
    # a request edited by hand to climb out of the layer, and a torn one
    vm.sh("printf 'strata-request 1\\nid 9\\nrevert user /../../root\\nend\\n' "
          "> /run/strata/data/strata.request && sync")
    vm = reboot(dev, vm)
    assert "strata.request is malformed (line 3); not applied" in vm.out("dmesg")
    assert vm.out("cat /root/userfile") == "mine"
    assert exists(vm, "/run/strata/data/strata.request.bad")
    assert ctx.boot_record(vm)["request_applied"] == "malformed"
    vm.sh("printf 'strata-request 1\\nid 10\\nreset full\\n' > /run/strata/data/strata.request")
    vm = reboot(dev, vm)
    assert vm.out("cat /root/userfile") == "mine"  # no end marker: not applied
    assert vm.out("cat /etc/sysfile") == "provisioned"


@scenario(NOR, collapsed=(NOR,))
def reset_is_refused_on_a_degraded_boot(ctx):
    vm = ctx.machine().boot(append="strata.data=nosuch")
    rc, out = vm.sh("strata reset --full -y 2>&1", check=False)
    assert rc == 1 and "this boot is degraded" in out, out
    # the stack asked for, in RAM
    rec = ctx.boot_record(vm)
    want = ["system+user"] if ctx.collapsed else ["system", "user"]
    assert rec["mode"] == "degraded" and rec["stack"] == want, rec
    # (a name new to the system upper's root: on the collapsed stack / sees
    # directories the system upper gains after / looked them up at the next boot)
    vm.sh("echo ram > /root/ram && echo sys > /run/strata/system/ramsys")
    assert vm.out("cat /root/ram /ramsys | tr '\\n' ' '") == "ram sys"


def cut_and_check(ctx, point, schedule, check):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.sh(schedule)
    vm.poweroff()
    vm = dev.boot(append="strata.powercut=" + point, wait_shell=False)
    vm.expect("strata.powercut=%s reached" % point, 90)
    vm.kill()
    vm = dev.boot()
    check(vm)
    assert not exists(vm, "/run/strata/data/strata.request")
    assert ctx.boot_record(vm)["mode"] == "normal"


def user_reset_done(ctx):
    def check(vm):
        assert not exists(vm, "/root/userfile") and exists(vm, "/etc/group")
        assert vm.out("cat /etc/sysfile") == "provisioned"
        assert ctx.boot_record(vm)["generations"] == {"system": 1, "user": 2}
    return check


@scenario(NOR, ARM64)
def power_cut_before_the_switch_applies_the_reset_again(ctx):
    cut_and_check(ctx, "reset-prepared", "strata reset --user -y", user_reset_done(ctx))


@scenario(NOR, collapsed=(NOR,))
def power_cut_after_the_switch_keeps_the_reset(ctx):
    cut_and_check(ctx, "request-applied", "strata reset --user -y", user_reset_done(ctx))


@scenario(NOR, collapsed=(NOR,))
def power_cut_during_revert_finishes_it(ctx):
    def check(vm):
        assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
        assert exists(vm, "/etc/group") and vm.out("cat /root/userfile") == "mine"
    cut_and_check(ctx, "revert-partial", "strata revert -y /etc/os-release /etc/group", check)


@scenario(NAND, collapsed=(NAND,))
def nand_reset_full(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.sh("factoryreset -y")
    vm = reboot(dev, vm)
    assert not exists(vm, "/etc/sysfile") and not exists(vm, "/root/userfile")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert ctx.boot_record(vm)["generations"] == {"system": 2, "user": 2}
    # the old user generation went to the user volume's own trash, then away
    wait_trash_gone(vm)
    assert not exists(vm, "/run/strata/userdata/strata.trash")
    assert vm.out("ls /run/strata/userdata | tr '\\n' ' '").strip() == "user.2"


@scenario(NAND, collapsed=(NAND,))
def nand_revert_opaque_dir_and_reset_user(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm.sh("rm -rf /etc/init.d && mkdir /etc/init.d && echo x > /etc/init.d/new && sync")
    assert not exists(vm, "/etc/init.d/rcS")
    vm.sh("strata revert -y /etc/init.d")
    vm = reboot(dev, vm)
    assert exists(vm, "/etc/init.d/rcS") and not exists(vm, "/etc/init.d/new")
    vm.sh("strata reset --user -y")
    vm = reboot(dev, vm)
    assert not exists(vm, "/root/userfile") and vm.out("cat /etc/sysfile") == "provisioned"
    assert ctx.boot_record(vm)["generations"] == {"system": 1, "user": 2}


# Nine kept paths make a reset --full of more than 20 steps: every step is a cut point.
KEEPS = ["/root/keep1", "/etc/keep2", "/root/kd", "/etc/none1", "/etc/none2", "/etc/none3",
         "/etc/none4", "/etc/none5", "/etc/none6"]
MIN_CUT_POINTS = 20


def power_cut_campaign(ctx, first, last, stride=1):
    """Cuts the power at every stride-th step from first to last of applying
    a reset --full (up to the first boot that runs through without a cut) and
    checks that every next boot is wholly the reset state, keeps included.
    Returns whether the steps ran out."""
    tmpl = ctx.machine("template")
    vm = tmpl.boot()
    changes(vm)
    vm.sh("echo k1 > /root/keep1 && echo k2 > /run/strata/system/etc/keep2 && "
          "mkdir -p /root/kd/sub && echo k3 > /root/kd/sub/f && sync")
    vm.sh("strata reset --full -y " + " ".join("-k " + k for k in KEEPS))
    vm.poweroff()
    for n in range(first, last + 1, stride):
        dev = ctx.machine("cut%d" % n)
        for name in dev.WRITABLE:
            if os.path.exists(tmpl.path(name)):
                shutil.copyfile(tmpl.path(name), dev.path(name))
        vm = dev.boot(append="strata.powercut=%d" % n, wait_shell=False)
        m = vm.expect(r"strata\.powercut=\d+ reached \(step \d+, [a-z-]+\)|root@[^:\s]+:[^\r\n]*# ",
                      120)
        cut = b"reached" in m.group(0)
        # every step up to MIN_CUT_POINTS exists
        assert cut or n > MIN_CUT_POINTS, (n, m.group(0))
        vm.kill()
        vm = dev.boot()
        state = (exists(vm, "/etc/sysfile"), exists(vm, "/root/userfile"),
                 exists(vm, "/etc/group"), vm.out("head -n 1 /etc/os-release"),
                 vm.out("cat /root/keep1 /etc/keep2 /root/kd/sub/f | tr '\\n' ' '"))
        assert state == (False, False, True, ORIG_RELEASE, "k1 k2 k3"), (n, state)
        rec = ctx.boot_record(vm)
        assert rec["mode"] == "normal" and rec["generations"] == {"system": 2, "user": 2}, \
            (n, rec["generations"])
        assert not exists(vm, "/run/strata/data/strata.request"), n
        dev.stop()
        if not cut:
            return True
    return False


# The host sweep (tests/unit/test_layers.c) cuts every step of every request
# kind on every layout in seconds; make check keeps one real power cut per
# flash kind (the kernel's own write-back and replay), at a different step
# each. `make check-powercut` (POWERCUT_SWEEP=full) cuts at every step on NOR
# and NAND, and at every tenth on the collapsed stack on NAND and eMMC.
if os.environ.get("POWERCUT_SWEEP") == "full":
    @scenario(NOR)
    def power_cut_campaign_nor_first_steps(ctx):
        assert not power_cut_campaign(ctx, 1, 11)

    @scenario(NOR)
    def power_cut_campaign_nor_last_steps(ctx):
        assert power_cut_campaign(ctx, 12, 40), "the reset never ran through"

    @scenario(NAND)
    def power_cut_campaign_nand_first_steps(ctx):
        assert not power_cut_campaign(ctx, 1, 11)

    @scenario(NAND)
    def power_cut_campaign_nand_last_steps(ctx):
        assert power_cut_campaign(ctx, 12, 40), "the reset never ran through"

    @scenario(collapsed=(NAND, EMMC))
    def power_cut_campaign_every_tenth_step(ctx):
        assert power_cut_campaign(ctx, 1, 40, 10), "the reset never ran through"
else:
    @scenario(NOR)
    def power_cut_campaign_sample_nor(ctx):
        assert not power_cut_campaign(ctx, 9, 9)

    @scenario(NAND)
    def power_cut_campaign_sample_nand(ctx):
        assert not power_cut_campaign(ctx, 16, 16)

    @scenario(collapsed=(EMMC,))
    def power_cut_campaign_sample_emmc(ctx):
        assert not power_cut_campaign(ctx, 5, 5)


def roles(vm):
    return [l["role"] for l in json.loads(vm.out("strata layers --json"))["layers"]]


@scenario(NOR)
def stack_deeper_than_the_kernel_nests_is_refused_at_boot(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm = reboot(dev, vm, append="strata.stack=system,vendor,user")
    dmesg = vm.out("dmesg")
    assert "ignoring kernel command line key 'strata.stack': names more than 2 overlay " \
        "levels: overlayfs nests at most 2 (the kernel's FILESYSTEM_MAX_STACK_DEPTH" in dmesg, \
        [l for l in dmesg.splitlines() if "strata" in l]
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal" and rec["cmdline_rejected"] == 1, rec
    assert rec["stack"] == ["system", "user"], rec
    # the built stack booted, every layer's changes in place
    assert roles(vm)[:2] == ["user", "system"], roles(vm)
    assert vm.out("cat /root/userfile") == "mine" and vm.out("cat /etc/sysfile") == "provisioned"
    assert "stack:     user overlay over the system overlay" in vm.out("strata status")


@scenario(NOR, NAND)
def system_overlay_alone_is_the_root(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    changes(vm)
    vm = reboot(dev, vm, append="strata.stack=system")
    rec = ctx.boot_record(vm)
    assert rec["stack"] == ["system"] and rec["cmdline_rejected"] == 0, rec
    assert "stack:     system overlay alone: / is the system layer" in vm.out("strata status")
    # the user layer is not mounted: its changes are hidden, the system layer's show
    assert not exists(vm, "/root/userfile") and exists(vm, "/etc/group")
    assert vm.out("head -n 1 /etc/os-release") == ORIG_RELEASE
    assert vm.out("cat /etc/sysfile") == "provisioned"
    assert "user" not in roles(vm) and roles(vm)[0] == "system", roles(vm)
    # / and /run/strata/system are one overlay: a write through either shows in both
    vm.sh("echo classic > /root/classic && sync")
    assert vm.out("cat /run/strata/system/root/classic") == "classic"
    # diff shows the layer / writes to
    diff = json.loads(vm.out("strata diff --json"))
    assert diff["layer"] == "system", diff
    assert {"path": "/root/classic", "change": "added"}.items() <= \
        [c for c in diff["changes"] if c["path"] == "/root/classic"][0].items(), diff
    rc, out = vm.sh("strata diff --user 2>&1", check=False)
    assert rc == 1 and "no user layer in the stack" in out, out
    rc, out = vm.sh("strata reset --user -y 2>&1", check=False)
    assert rc == 1 and "there is no user layer to drop" in out, out
    assert not exists(vm, "/run/strata/data/strata.request")
    # revert defaults to the system layer, where this root's changes are
    assert "revert scheduled" in vm.out("strata revert -y /etc/sysfile")
    assert "/etc/sysfile (system)" in vm.out("strata status")
    vm = reboot(dev, vm)
    rec = ctx.boot_record(vm)
    assert rec["stack"] == ["system", "user"] and rec["request_applied"] == "revert", rec
    assert not exists(vm, "/etc/sysfile")
    # the user layer comes back as it was; what the one-level boot wrote is in the system layer
    assert vm.out("cat /root/userfile") == "mine" and not exists(vm, "/etc/group")
    assert vm.out("cat /root/classic") == "classic"
    assert exists(vm, "/run/strata/data/system.1/upper/root/classic")
    assert roles(vm)[:2] == ["user", "system"], roles(vm)
