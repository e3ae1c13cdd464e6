# SPDX-License-Identifier: GPL-2.0-only
"""The reset button: F12 of the emulated keyboard held through the QEMU monitor
for set times; what each hold schedules and what the next boot shows."""
import json
import os
import re
import socket
import threading
import time

from scenario import scenario

NOR = "qemu_x86_64_nor"
NAND = "qemu_x86_64_nand"
LED = "/sys/class/leds/input*::scrolllock"  # the shell expands it


def changes(vm):
    vm.sh("echo provisioned > /run/strata/system/etc/sysfile")
    vm.sh("echo mine > /root/userfile && sync")


def exists(vm, path):
    return vm.sh("test -e %s" % path, check=False)[0] == 0


def hold(vm, ms):
    """Holds F12 for ms (QEMU's own timer; the guest stamps press and release)."""
    vm.monitor("sendkey f12 %d" % ms)


def daemon_ready(vm, timeout=60):
    """Waits until the daemon watches the key (a press before would be ignored)."""
    deadline = time.monotonic() + timeout
    while "key 88 on 1 device" not in vm.sh("dmesg | grep 'strata: button: key'",
                                            check=False)[1]:
        assert time.monotonic() < deadline, vm.out("dmesg | grep strata")
        time.sleep(0.5)


def boot(dev, **kw):
    vm = dev.boot(**kw)
    daemon_ready(vm)
    return vm


def released(vm, count, timeout=40):
    """Waits for the daemon's count-th release line; returns (ms, what it did)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # the daemon's console copy of a line may cut into this output: retry then
        found = re.findall(r"strata: button: released after (\d+) ms(?:: |, ignored: )([^\r\n]*)",
                           vm.out("dmesg | grep 'strata: button: released after'"))
        if len(found) >= count:
            return int(found[count - 1][0]), found[count - 1][1]
        time.sleep(1)
    raise AssertionError("no release seen; dmesg: " + vm.out("dmesg | grep button"))


def reboot_by_button(dev, vm, kind):
    """The daemon schedules kind and reboots (-no-reboot: QEMU exits); boots again."""
    vm.wait_exit(90)
    before = vm.text
    assert "%s scheduled for the next boot" % kind in before, before[-1500:]
    vm = boot(dev)
    rec = dev_record(vm)
    assert rec["request_applied"] == kind, rec
    return vm, rec, before


def dev_record(vm):
    return json.loads(vm.out("cat /run/strata/boot.json"))


@scenario(NOR)
def button_short_and_4_5s_presses_do_nothing(ctx):
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    assert "key 88 on 1 device(s); user reset at 5000 ms, full reset at 10000 ms" in \
        vm.out("dmesg | grep 'strata: button'")
    hold(vm, 300)
    ms, what = released(vm, 1)
    assert ms < 1000 and what == "nothing", (ms, what)
    hold(vm, 4500)
    ms, what = released(vm, 2)
    assert 4000 < ms < 5000 and what == "nothing", (ms, what)
    assert "held 5 s" not in vm.out("dmesg")
    # OpenWrt's hotplug environment: the same policy
    assert vm.sh("BUTTON=reset ACTION=released SEEN=4 strata button-event")[0] == 0
    assert vm.sh("BUTTON=wps ACTION=released SEEN=30 strata button-event")[0] == 0
    rc, _ = vm.sh("BUTTON=reset ACTION=released SEEN=x strata button-event", check=False)
    assert rc == 2
    assert "SEEN='x' is not a number" in vm.out("dmesg | tail -n 3")
    assert not exists(vm, "/run/strata/data/strata.request")
    vm.poweroff()
    vm = boot(dev)
    assert vm.out("cat /root/userfile") == "mine"
    assert dev_record(vm)["request_applied"] == ""


@scenario(NOR, collapsed=(NOR,))
def button_held_5_3s_resets_the_user_layer(ctx):
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    hold(vm, 5300)
    vm, rec, before = reboot_by_button(dev, vm, "reset --user")
    assert "strata: button held 5 s: release now for a user reset" in before
    m = re.search(r"released after (\d+) ms: reset --user", before)
    assert m and 5000 <= int(m.group(1)) < 5800, before[-1500:]
    assert not exists(vm, "/root/userfile")
    assert vm.out("cat /etc/sysfile") == "provisioned"
    assert rec["generations"] == {"system": 1, "user": 2}, rec


@scenario(NOR)
def button_held_10_4s_resets_everything_and_lights_the_led(ctx):
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    assert "[kbd-scrolllock]" in vm.out("cat %s/trigger" % LED)
    hold(vm, 10400)
    time.sleep(7)  # past the user threshold: the LED is taken over
    assert "[none]" in vm.out("cat %s/trigger" % LED)
    assert vm.out("cat %s/brightness" % LED) == "1"
    vm, rec, before = reboot_by_button(dev, vm, "reset --full")
    assert "held 10 s: release now for a full reset" in before
    assert not exists(vm, "/root/userfile") and not exists(vm, "/etc/sysfile")
    assert rec["generations"] == {"system": 2, "user": 2}, rec


@scenario(NAND)
def button_held_9_5s_is_still_a_user_reset(ctx):
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    hold(vm, 9500)
    vm.wait_exit(90)
    m = re.search(r"strata: button released after (\d+) ms: reset --user", vm.text)
    assert m and 9000 < int(m.group(1)) < 10000, vm.text[-1500:]
    vm = boot(dev)
    rec = dev_record(vm)
    assert rec["request_applied"] == "reset --user", rec
    assert not exists(vm, "/root/userfile")
    assert vm.out("cat /etc/sysfile") == "provisioned"


class Qmp:
    """QEMU's QMP socket: key down and key up as separate events, with no timer,
    so a test can release the key when the guest says so."""

    def __init__(self, path, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.rd = self.sock.makefile("rb")
        self.rd.readline()  # greeting
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        while True:  # skip asynchronous events
            reply = json.loads(self.rd.readline())
            if "return" in reply or "error" in reply:
                assert "error" not in reply, reply
                return reply["return"]

    def key(self, down):
        self.cmd("input-send-event", events=[{"type": "key", "data": {
            "down": down, "key": {"type": "qcode", "data": "f12"}}}])


def boot_holding(dev):
    """Boots with F12 going down as soon as the guest can see it: a key down is
    repeated (as a held key's typematic would be) until the init reports the
    button held. Returns the console and the QMP connection."""
    sock = os.path.join(dev.workdir, "qmp-%d.sock" % (dev.boots + 1))
    seen = threading.Event()
    conn = []

    def repeat():
        # a boot the harness retries (an emulator oops before /init) is a new
        # QEMU on the same socket path: connect again when the old one is gone.
        # The keyboard's driver binds asynchronously, possibly just before the
        # init looks (it waits for a young device's first report): a key down
        # every 100 ms.
        while not seen.is_set():
            try:
                if not conn:
                    conn.append(Qmp(sock))
                conn[0].key(True)
            except Exception:  # noqa: BLE001 - any failure: a new connection
                if conn:
                    conn.pop().sock.close()
            time.sleep(0.1)
    # pressing from the start: the init may read the key a second after it starts
    t = threading.Thread(target=repeat, daemon=True)
    t.start()
    try:
        # i8042.dumbkbd: the kernel does not probe the keyboard (a key's byte
        # in place of the keyboard's ID fails the probe, and there is no
        # keyboard at all); the power-on check needs no LED
        vm = dev.boot(qemu_args=["-qmp", "unix:%s,server=on,wait=off" % sock],
                      append="i8042.dumbkbd=1", wait_shell=False)
        vm.expect(r"button held at power-on: user reset at 5 s, full reset at 10 s", 90)
    finally:
        seen.set()
        t.join(10)
    qmp = conn[0]
    return vm, qmp


@scenario(NOR)
def button_device_missing_at_power_on_is_waited_for_and_named(ctx):
    # i8042.nokbd: no keyboard ever appears; the check waits its
    # CONFIG_STRATA_BUTTON_WAIT_MS, says so, and the boot goes on
    vm = ctx.machine().boot(append="i8042.nokbd")
    vm.expect(r"button: no input device with key 88 after 1000 ms; not checked at power-on",
              from_start=True)
    rec = ctx.boot_record(vm)
    assert rec["request_applied"] == "" and rec["fatal_phase"] == "", rec
    assert "button" not in [p["name"] for p in rec["phases"]], rec


@scenario(NOR, collapsed=(NOR,))
def button_held_at_power_on(ctx):
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    vm.poweroff()
    # released during the countdown, before 5 s: a normal boot
    vm, qmp = boot_holding(dev)
    vm.expect(r"strata: reset button held 2 s: user reset at 5 s; release now to boot normally")
    qmp.key(False)
    vm.expect(r"button at power-on: booting normally")
    vm.wait_shell()
    daemon_ready(vm)
    rec = dev_record(vm)
    assert rec["request_applied"] == "" and "button" in [p["name"] for p in rec["phases"]], rec
    assert vm.out("cat /root/userfile") == "mine"
    vm.poweroff()
    # released between 5 and 10 s: reset --user, applied before the overlays are mounted
    vm, qmp = boot_holding(dev)
    vm.expect(r"strata: reset button held 6 s: full reset at 10 s; release now for a user reset")
    qmp.key(False)
    vm.expect(r"button at power-on: reset --user\r?\n.*applying reset --user.*exec /sbin/init", 60)
    vm.wait_shell()
    daemon_ready(vm)
    rec = dev_record(vm)
    assert rec["request_applied"] == "reset --user" and rec["generations"] == \
        {"system": 1, "user": 2}, rec
    assert not exists(vm, "/root/userfile") and vm.out("cat /etc/sysfile") == "provisioned"
    # the recovery path trusts nothing in the layers it wipes: a keep list
    # written into the user layer is not what decides what survives
    vm.sh("echo /root/secret > /etc/strata/keep && echo s > /root/secret && sync")
    vm.poweroff()
    # held to 10 s: reset --full without waiting; the daemon then finds the key
    # still held and does not measure a press it did not see begin
    vm, qmp = boot_holding(dev)
    vm.expect(r"button at power-on: reset --full; release the button now\r?\n"
              r".*applying reset --full.*exec /sbin/init", 60)
    vm.wait_shell()
    daemon_ready(vm)
    assert "button: held at start: ignored until released" in vm.out("dmesg | grep button")
    qmp.key(False)
    ms, what = released(vm, 1)
    assert what == "released without a press seen", (ms, what)
    rec = dev_record(vm)
    assert rec["request_applied"] == "reset --full" and rec["generations"]["system"] == 2, rec
    assert not exists(vm, "/etc/sysfile")
    assert not exists(vm, "/run/strata/data/strata.request")
    wiped = not exists(vm, "/root/secret") and "secret" not in vm.out("cat /etc/strata/keep")
    ctx.hostile_row("keep list in the user layer, power-on button reset (nor)", 0, 0,
                    "" if wiped else "FAILED: the user layer's keep list was obeyed")
    assert wiped, "the power-on reset took its keep list from the layer it wiped"


@scenario(NOR)
def button_syn_dropped_restarts_the_measurement(ctx):
    """A real evdev queue overflow: the daemon is stopped while F12 goes down and
    keyboard LED events (written to the event device, each with its
    SYN_REPORT) flood its queue; the press is lost, SYN_DROPPED is read, the
    key is read back held, and the hold is measured from there: a 12 s hold
    counted from ~4 s in is a user reset, not a full one."""
    dev = ctx.machine()
    vm = boot(dev)
    changes(vm)
    # EV_LED LED_NUML 1, SYN_REPORT, EV_LED LED_NUML 0, SYN_REPORT (struct input_event)
    vm.sh("{ head -c 16 /dev/zero; printf '\\021\\0\\0\\0\\001\\0\\0\\0'; head -c 40 /dev/zero;"
          " printf '\\021\\0\\0\\0\\0\\0\\0\\0'; head -c 24 /dev/zero; } > /tmp/led1")
    vm.sh("for i in $(seq 100); do cat /tmp/led1; done > /tmp/led-events")
    assert vm.out("wc -c < /tmp/led-events") == "9600"
    pid = vm.out("pidof strata")
    vm.sh("kill -STOP %s" % pid)
    t0 = time.monotonic()
    hold(vm, 12000)
    vm.sh("cat /tmp/led-events > /dev/input/event0")
    time.sleep(max(0.0, 4.0 - (time.monotonic() - t0)))
    vm.sh("kill -CONT %s" % pid)
    lost = time.monotonic() - t0
    assert 3.5 < lost < 6, lost  # so that 12 s from there is a user reset
    time.sleep(1)
    log = vm.out("dmesg | grep 'strata: button'")
    assert "input events were dropped (SYN_DROPPED); key 88 reads held: measuring the hold " \
        "from now" in log, log
    assert "button: pressed" not in log, log  # the press itself was lost in the overflow
    vm.wait_exit(90)
    assert "reset --user scheduled for the next boot" in vm.text, vm.text[-1500:]
    vm = boot(dev)
    assert dev_record(vm)["request_applied"] == "reset --user"
    assert vm.out("cat /etc/sysfile") == "provisioned" and not exists(vm, "/root/userfile")
