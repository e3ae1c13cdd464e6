# SPDX-License-Identifier: GPL-2.0-only
"""The real init is checked inside the new root before the initramfs is freed, so a
wrong strata.init ends in the initramfs's emergency shell; strata as PID 1 on a
root that is not an initramfs refuses to run."""
import re

from scenario import scenario

NOR = "qemu_x86_64_nor"
EMERGENCY = r"\(strata emergency\) # "
OVERLAYFS_MAGIC = "0x794c7630"


def refused(dev, init, why, append=""):
    """Boots with strata.init=init; the fatal message names it and why, and the
    emergency shell is the initramfs's, with the assembled root still mounted."""
    vm = dev.boot(append=("strata.init=%s %s" % (init, append)).strip(), wait_shell=False)
    vm.expect(r"FATAL: switch_root into /newroot: strata\.init '%s' %s"
              % (re.escape(init), why), 120)
    return intact(vm)


def intact(vm):
    """The emergency shell after a refused switch_root is the initramfs's, whole."""
    vm.expect(EMERGENCY, 30)
    # strata is still PID 1 and '/' is the initramfs: /init and its busybox are there
    assert vm.out("cat /proc/1/comm") == "init"
    assert vm.out("stat -f -c %T /") in ("tmpfs", "ramfs")
    vm.sh("test -x /init && test -x /bin/busybox")
    # nothing was moved: the API filesystems are where PID 1 mounted them, and the
    # assembled root is mounted, whole, at /newroot
    mounts = {m["mountpoint"]: m["fstype"] for m in dev_mounts(vm)}
    for mp, fstype in (("/proc", "proc"), ("/sys", "sysfs"), ("/dev", "devtmpfs"),
                       ("/run", "tmpfs"), ("/newroot", "overlay")):
        assert mounts.get(mp) == fstype, (mp, mounts)
    assert not [mp for mp in mounts if mp.startswith("/newroot/")], mounts
    assert "os-release" in vm.out("ls /newroot/etc")
    assert "strata: exec " not in vm.text, "the init was exec'd before the check"
    return vm


def dev_mounts(vm):
    res = []
    for line in vm.out("cat /proc/self/mountinfo").splitlines():
        pre, _, post = line.partition(" - ")
        if len(pre.split()) >= 5 and post.split():
            res.append({"mountpoint": pre.split()[4], "fstype": post.split()[0]})
    return res


@scenario(NOR)
def init_check_refuses_a_bad_init_before_freeing(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    # the test root's init is a relative symlink, resolved inside the new root
    assert vm.out("readlink /sbin/init") == "../bin/busybox"
    assert ctx.boot_record(vm)["init"] == "/sbin/init"
    vm.sh("echo kept > /root/marker && sync")
    vm.poweroff()

    vm = refused(dev, "/sbin/nosuch", "not found in the new root")
    # the flash layers are mounted and hold what the last boot wrote
    assert vm.out("cat /newroot/root/marker") == "kept"
    assert vm.out("cat /run/strata/data/user.1/upper/root/marker") == "kept"

    vm = refused(dev, "/etc/os-release", r"is not executable \(mode 0644\)")
    vm = refused(dev, "/etc", "is a directory, not a program")

    # the kernel refuses to move the new root onto '/' (strata.fault=root-move makes
    # '/' a shared mount first): the API mounts were moved already and go back, the
    # initramfs was not touched, and the record of the boot is readable in /run/strata
    vm = dev.boot(append="strata.fault=root-move", wait_shell=False)
    vm.expect(r"FATAL: switch_root into /newroot: cannot move '/newroot' to '/': "
              r"Invalid argument", 120)
    intact(vm)
    rec = ctx.boot_record(vm)
    assert rec["init"] == "/sbin/init" and rec["initramfs_bytes_before"] == 0, rec
    assert vm.out("cat /run/strata/data/user.1/upper/root/marker") == "kept"

    # strata.fatal=reboot: the message, then the reboot (QEMU exits with -no-reboot);
    # nothing was exec'd or freed in between
    vm = dev.boot(append="strata.fatal=reboot strata.init=/sbin/nosuch", wait_shell=False)
    vm.expect(r"FATAL: switch_root into /newroot: strata\.init '/sbin/nosuch' not found in "
              r"the new root", 120)
    vm.expect(r"rebooting in \d+ s", 30)
    vm.wait_exit(60)
    assert "strata: exec " not in vm.text and "(strata emergency)" not in vm.text

    # the failed boots changed nothing on the flash
    vm = dev.boot()
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal" and rec["init"] == "/sbin/init", rec
    assert rec["generations"] == {"system": 1, "user": 1}, rec
    assert vm.out("cat /root/marker") == "kept"


@scenario(NOR)
def init_check_resolves_symlinks_in_the_new_root(ctx):
    dev = ctx.machine()
    vm = dev.boot()
    # absolute symlinks: /usr exists in the new root only, /init in the initramfs only
    vm.sh("mkdir -p /usr/libexec/strata-test /opt"
          " && ln -s /bin/busybox /usr/libexec/strata-test/init"
          " && ln -s /usr/libexec/strata-test/init /opt/init"
          " && ln -s /init /opt/hostinit && ln -s /opt/loop /opt/loop && sync")
    vm.poweroff()

    # resolved in the initramfs, /opt/hostinit would be strata itself
    refused(dev, "/opt/hostinit", "not found in the new root")
    refused(dev, "/opt/loop", r"cannot be resolved in the new root: a symlink loop")

    # resolved in the initramfs, /opt/init would not be found
    vm = dev.boot(append="strata.init=/opt/init")
    assert vm.out("readlink /proc/1/exe") == "/bin/busybox"
    rec = ctx.boot_record(vm)
    assert rec["mode"] == "normal" and rec["init"] == "/opt/init", rec
    assert "strata: exec /opt/init" in vm.out("dmesg")


@scenario(NOR)
def init_check_refuses_pid1_outside_an_initramfs(ctx):
    vm = ctx.machine().boot()

    def mounts():
        return sorted((m["mountpoint"], m["fstype"], m["source"]) for m in ctx.mounts(vm))
    before = mounts()
    start = len(vm.buf)
    # PID 1 of a new PID namespace on the running overlay root: strata sees getpid() == 1
    # (a mount namespace of its own keeps the running system safe whatever it does)
    vm.send("unshare -p -f -m /sbin/strata\n")
    vm.expect(r"strata: '/' is not an initramfs \(filesystem type %s\); refusing to run as "
              r"the boot init, it would free the running root" % OVERLAYFS_MAGIC, 60)
    vm.expect(EMERGENCY, 30)
    # this root's shell, run by strata, PID 1 of the namespace, which mounted nothing
    assert vm.out("for p in $(pidof strata); do grep -q '^NSpid:.*[[:space:]]1$' "
                  "/proc/$p/status && echo ns-init || true; done") == "ns-init"
    assert mounts() == before
    after = vm.buf[start:].decode("utf-8", "replace")
    assert "strata: starting" in after and "FATAL" not in after, after
