# SPDX-License-Identifier: GPL-2.0-only
"""Drives a board's start-qemu.sh: boots it, talks to the console shell, cuts power."""
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time


class BootError(AssertionError):
    pass


class Machine:
    """One emulated device: a private copy of the writable flash images, so
    scenarios run in parallel and state persists across boots of one machine."""

    WRITABLE = ("flash-data.bin", "flash-log.bin", "flash-emmc.bin")

    def __init__(self, images, workdir, append=""):
        self.append = append  # before every boot's own kernel command line keys
        self.dir = os.path.join(workdir, "images")
        os.makedirs(self.dir, exist_ok=True)
        for name in os.listdir(images):
            src, dst = os.path.join(images, name), os.path.join(self.dir, name)
            if os.path.lexists(dst):
                continue
            if name in self.WRITABLE:
                shutil.copyfile(src, dst)
            elif name == "start-qemu.sh":
                shutil.copy2(src, dst)
            else:
                os.symlink(os.path.abspath(src), dst)
        self.workdir = workdir
        self.boots = 0
        self.vm = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def stop(self):
        if self.vm:
            self.vm.kill()

    # QEMU 7.2's multi-threaded TCG now and then runs a stale int3 while the
    # guest kernel patches its own text during early boot (an oops in
    # sched_init_debug or similar, long before /init), or stalls there without
    # a word for minutes. That is the emulator, not the system under test: a
    # boot that never reached the init's first line is retried, and said so
    # (a broken image fails every attempt the same way).
    EMULATOR_RETRIES = 2

    @staticmethod
    def _early_panic(text):
        return "strata: starting" not in text and "preinit: start" not in text

    def boot(self, append="", qemu_args=(), wait_shell=True, timeout=120):
        for attempt in range(self.EMULATOR_RETRIES + 1):
            self.stop()
            self.boots += 1
            log = os.path.join(self.workdir, "console-%d.log" % self.boots)
            self.vm = VM(self.path("start-qemu.sh"), log, " ".join(filter(None, (self.append, append))),
                         qemu_args)
            try:
                if wait_shell:
                    self.vm.wait_shell(timeout)
                else:
                    self.vm.expect(r"strata: starting|preinit: start", timeout)
                return self.vm
            except BootError:
                if attempt == self.EMULATOR_RETRIES or not self._early_panic(self.vm.text):
                    raise
                print("note: %s: guest kernel oopsed or stalled before /init (emulator); "
                      "booting again" % log, file=sys.stderr, flush=True)
        return self.vm


class VM:
    def __init__(self, script, logpath, append="", qemu_args=()):
        args = [script]
        if append:
            args += ["--append", append]
        args += ["-no-reboot"] + list(qemu_args)
        self.logfile = open(logpath, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.buf = b""
        self.pos = 0
        self.lock = threading.Condition()
        self.seq = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            data = self.proc.stdout.read1(65536)
            with self.lock:
                if not data:
                    self.lock.notify_all()
                    return
                self.buf += data
                self.logfile.write(data)
                self.logfile.flush()
                self.lock.notify_all()

    @property
    def text(self):
        return self.buf.decode("utf-8", "replace")

    def expect(self, pattern, timeout=60, from_start=False):
        """Waits for regex pattern in console output after the last match."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern, re.S)
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                m = rx.search(self.buf, 0 if from_start else self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self.reader.is_alive()):
                    tail = self.buf[-1500:].decode("utf-8", "replace")
                    raise BootError("timed out after %ds waiting for %r; console tail:\n%s"
                                    % (timeout, pattern, tail))
                self.lock.wait(min(left, 0.5))

    def send(self, data):
        self.proc.stdin.write(data.encode() if isinstance(data, str) else data)
        self.proc.stdin.flush()

    def wait_shell(self, timeout=120):
        self.expect(r"(root@[^:\s]+:[^\r\n]*# |\(strata emergency\) # )", timeout)

    def sh(self, cmd, timeout=60, check=True):
        """Runs cmd in the console shell; returns (rc, output)."""
        self.seq += 1
        n = self.seq
        self.send("echo @@B%d; %s; echo @@E%d:$?\n" % (n, cmd, n))
        m = self.expect(r"@@B%d\r?\n(.*?)@@E%d:(\d+)\r?\n" % (n, n), timeout)
        out = m.group(1).decode("utf-8", "replace").replace("\r", "")
        rc = int(m.group(2))
        if check and rc != 0:
            raise AssertionError("command %r exited %d:\n%s" % (cmd, rc, out))
        return rc, out

    def out(self, cmd, timeout=60):
        return self.sh(cmd, timeout)[1].strip()

    def monitor(self, cmd):
        """QEMU monitor command through the multiplexed console (Ctrl-A c)."""
        self.send(b"\x01c")
        time.sleep(0.3)
        self.send(cmd + "\n")
        time.sleep(0.3)
        self.send(b"\x01c")

    def wait_exit(self, timeout=60):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            tail = self.buf[-1500:].decode("utf-8", "replace")
            self.kill()
            raise BootError("QEMU did not exit within %ds; console tail:\n%s" % (timeout, tail))
        self.reader.join(5)
        return self.proc.returncode

    # The test root's busybox init spends 3 s of a shutdown in fixed pauses (a
    # second before it acts on the signal, one after SIGTERM, one before the
    # power-off, for a serial console's last lines) and 0.1 s in its shutdown
    # script, which stops the services, syncs and remounts the flash uppers
    # read-only. On that root, a clean shutdown is the script itself and then
    # the power-off; any other init (procd, systemd) is asked to shut down.
    CLEAN_OFF = ('sync; if [ "$(cat /proc/1/comm)" = init ] && [ -x /etc/init.d/rcK ]; then '
                 '/etc/init.d/rcK && poweroff -f; else poweroff; fi\n')

    def poweroff(self, timeout=60, through_init=False):
        """Clean shutdown: the flash filesystems synced and remounted read-only."""
        self.send("sync; poweroff\n" if through_init else self.CLEAN_OFF)
        return self.wait_exit(timeout)

    def kill(self):
        """Power cut: the emulator stops dead; whatever the guest had not
        written to its flash is lost."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.reader.join(5)
        if not self.logfile.closed:
            self.logfile.close()
