# SPDX-License-Identifier: GPL-2.0-only
"""The collapsed stack (strata.stack=system+user): the user and the system layer in
one overlay leave the device an overlay level of its own; the nested stack spends both."""
import json

from scenario import COLLAPSED, scenario

NOR = "qemu_x86_64_nor"
NAND = "qemu_x86_64_nand"

# an overlay whose lowers lie on / (read-only: sysext style), and a container's
# with its upper and work directories on the raw flash filesystem
FREE_LEVEL = " && ".join((
    "mkdir -p /run/ext/bin /mnt/ro /mnt/ctr",
    "echo ext > /run/ext/bin/from-ext",
    "mount -t overlay -o ro,lowerdir=/run/ext:/usr overlay /mnt/ro",
    "mkdir -p /run/strata/data/ctr/upper /run/strata/data/ctr/work",
    "mount -t overlay -o lowerdir=/usr,upperdir=/run/strata/data/ctr/upper,"
    "workdir=/run/strata/data/ctr/work overlay /mnt/ctr"))


def try_free_level(vm):
    rc, out = vm.sh("{ %s; } 2>&1" % FREE_LEVEL, check=False)
    return rc, out + vm.out("dmesg | grep -i 'overlayfs' | tail -n 3")


@scenario(NOR, NAND)
def collapsed_stack_leaves_a_level_the_nested_one_does_not(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    # nested: both levels spent, and status says so
    rc, out = try_free_level(vm)
    assert rc != 0 and "maximum fs stacking depth exceeded" in out, (rc, out)
    assert "no overlay level left for overlays on /" in vm.out("strata status")
    vm.sh("echo provisioned > /run/strata/system/etc/sysfile && echo mine > /root/userfile")
    vm.sh("rm /etc/group && rm /run/strata/system/etc/os-release")  # user and system whiteouts
    if ctx.board == NAND:  # an opaque directory in the system upper (jffs2 cannot make one)
        vm.sh("rm -rf /run/strata/system/etc/strata && mkdir /run/strata/system/etc/strata && "
              "echo n > /run/strata/system/etc/strata/new")
    vm.sh("sync")
    vm.poweroff()
    # collapsed: the same layers from the same flash, in one overlay
    vm = dev.boot(append=COLLAPSED)
    rec = ctx.boot_record(vm)
    assert rec["stack"] == ["system+user"] and rec["mode"] == "normal", rec
    root = ctx.mount_at(vm, "/")
    gen = rec["generations"]
    assert "upperdir=/run/strata/%s/user.%d/upper" % (
        "userdata" if ctx.board == NAND else "data", gen["user"]) in root["options"], root
    assert "lowerdir+=/run/strata/data/system.%d/upper" % gen["system"] in root["options"] or \
        "lowerdir=/run/strata/data/system.%d/upper:" % gen["system"] in root["options"], root
    assert "one overlay level left for overlays on /" in vm.out("strata status")
    # every layer's changes as before: the user's, the system's, a deletion
    assert vm.out("cat /root/userfile") == "mine" and vm.out("cat /etc/sysfile") == "provisioned"
    assert vm.sh("test -e /etc/group", check=False)[0] == 1
    # the system upper's whiteout and opaque directory hide the lowers' files at /
    assert vm.sh("test -e /etc/os-release", check=False)[0] == 1
    w = json.loads(vm.out("strata which --json /etc/os-release; true"))
    assert (w["hidden_by_layer"], w["hidden_by_kind"]) == ("system", "whiteout"), w
    if ctx.board == NAND:
        assert vm.out("ls /etc/strata") == "new"
        w = json.loads(vm.out("strata which --json /etc/strata/keep; true"))
        assert (w["hidden_by_layer"], w["hidden_by_path"], w["hidden_by_kind"]) == \
            ("system", "/etc/strata", "opaque directory"), w
    rc, out = try_free_level(vm)
    assert rc == 0, out
    # both the extension's files and /usr's
    assert vm.out("cat /mnt/ro/bin/from-ext") == "ext"
    assert vm.out("readlink /mnt/ro/bin/env") == vm.out("readlink /usr/bin/env")
    vm.sh("echo written > /mnt/ctr/new && rm /mnt/ctr/bin/env && sync")
    assert vm.out("cat /run/strata/data/ctr/upper/new") == "written"
    assert vm.out("stat -c %F /run/strata/data/ctr/upper/bin/env") == "character special file"
    assert vm.sh("test -L /usr/bin/env", check=False)[0] == 0  # the root is untouched
    vm.sh("umount /mnt/ctr /mnt/ro")
    # the system overlay stays writable, and what is written there shows at /
    vm.sh("echo later > /run/strata/system/etc/later && sync")
    assert vm.out("cat /etc/later") == "later"
    # a file of the system upper is the system layer's; the user's stays the user's
    which = vm.out("strata which /etc/sysfile")
    assert "system" in which.splitlines()[0], which
    assert "user" in vm.out("strata which /root/userfile").splitlines()[0]
