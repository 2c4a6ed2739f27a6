"""QEMU command lines for lull, and the serial console of a running guest.

    args = qemu_args(append="hz=100", machine="isapc", cpu="486", icount=4)
    vm = Lull(args, log_path, timeout=30)     # QEMU started, console on a pty
    vm.wait_prompt(); out = vm.cmd("uptime")  # type a line, read its output
    r = run_script(["idle 2", "wakeups"])     # a boot driven by run=
    r.out("wakeups")                          # what that command printed

QEMU runs under TCG unless ACCEL=kvm is set (only where hardware
virtualization is real).  When QEMU exits or stops answering before the
text a caller waits for, the call raises EmulatorFailure with QEMU's exit
status (or "still running") and the tail of what it printed, QEMU's own
error lines included (its stderr shares the pty with the serial console):
never an empty message.

Guest time.  With `icount=4` a boot runs under `-icount shift=4,sleep=off`
(one guest instruction is 16 ns of guest time, and while every CPU halts
QEMU moves guest time on to the next deadline at once) with the CMOS clock
on the virtual clock from a fixed date (ICOUNT_RTC): the same boot gives
the same log, whatever else the host is doing.  That is every test's clock
unless its subject is the host's own clock.
"""
import os
import re
import subprocess
import time

import pexpect

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
if not os.path.isabs(BUILD):
    BUILD = os.path.join(ROOT, BUILD)
ELF = os.path.join(BUILD, "lull.elf")
ISO = os.path.join(BUILD, "lull.iso")
LOG_DIR = os.path.join(BUILD, "test-logs")
ACCEL = os.environ.get("ACCEL", "tcg")
PROMPT = "lull> "
# Host exit statuses (QEMU isa-debug-exit gives (code << 1) | 1; see
# include/power.h).
EXIT_ACPI_POWEROFF = 0
EXIT_DEBUG_POWEROFF = 1
EXIT_SELFTEST_PASS = 33
EXIT_SELFTEST_FAIL = 35

# The deterministic clock: 16 ns per instruction, idle time skipped, and
# the CMOS clock on the virtual clock from a fixed date (rtc_init waits out
# an update cycle wherever the host's second falls, which otherwise moves
# the whole boot by up to a second).
ICOUNT_SHIFT = 4
ICOUNT_RTC_BASE = "2026-01-01T00:00:00"
ICOUNT_RTC = ["-rtc", f"clock=vm,base={ICOUNT_RTC_BASE}"]

# The machines lull must boot and keep time on (qemu_args(**MACHINE_SHAPES[k])).
MACHINE_SHAPES = {
    "pc": dict(machine="pc"),
    "q35": dict(machine="q35"),
    "pc-no-hpet": dict(machine="pc", extra=["-no-hpet"]),
    "isapc-486": dict(machine="isapc", cpu="486"),
    "isapc-pentium": dict(machine="isapc", cpu="pentium"),
    "pentium3": dict(cpu="pentium3"),
}

# UEFI firmware (Debian's ovmf and ovmf-ia32; the Makefile's UEFI=1 and UEFI=32).
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE.fd"
OVMF32_CODE = "/usr/share/OVMF/OVMF32_CODE_4M.secboot.fd"
OVMF32_VARS = "/usr/share/OVMF/OVMF32_VARS_4M.fd"


class EmulatorFailure(AssertionError):
    """An emulator exited, or went quiet, before the expected output."""


def describe_exit(status, signal=None):
    """Words for an emulator's exit: 'exit status 1', 'killed by signal 6'."""
    if signal:
        return f"killed by signal {signal}"
    if status is None:
        return "still running"
    if status < 0:
        return f"killed by signal {-status}"
    if status > 128:
        return f"exit status {status} (signal {status - 128} in a shell)"
    return f"exit status {status}"


def emulator_failure(what, state, tail, waited_for=None):
    """The one message every early-exit or time-out failure prints:
    "QEMU stopped (exit status 1) before 'lull> ' appeared; the last ..."."""
    tail = tail[-2000:] if tail.strip() else "(it printed nothing)"
    before = f" before {waited_for!r} appeared" if waited_for is not None else ""
    return EmulatorFailure(f"{what} ({state}){before}; the last of its output:\n{tail}")


# ------------------------------------------------------------ command lines

def icount_host_cpu():
    """The host CPU an -icount boot is pinned to.  Alone, the last CPU this
    process may use (tools/soak.py picks the same one); as one of several
    pytest-xdist workers, worker N takes the Nth, so two workers' boots do
    not share one CPU while the other has nothing to do."""
    cpus = sorted(os.sched_getaffinity(0))
    worker = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    if worker:
        return cpus[int(worker.group(1)) % len(cpus)]
    return cpus[-1]


def icount_pin(host_cpu=None):
    """The command prefix that pins an -icount boot to one host CPU: one
    driven by run= (no typed input), or one asked to be (qemu_args' pin).

    QUIRK: under -icount sleep=off, QEMU 7.2's single vCPU thread counts the
    instructions of its last slice into the virtual clock only after it
    leaves the slice (icount_process_data, outside the big lock), but the
    HLT that ends the slice has already marked the CPU halted.  A main loop
    running on another host CPU in that window sees every CPU idle, reads
    the clock without those instructions, and warps it to the next deadline
    plus them: the guest wakes that many instructions late (up to ~1400, a
    22 us latency sample, in dyntick on the PIT, where the main loop is
    awake because idle entry has just reprogrammed the PIT).  How often
    depends on the host: here 11 of 40 repeats of one such boot differed.
    On one host CPU the two threads never run at once: the main loop could
    look only if the vCPU thread were preempted inside that window of about
    a microsecond.  0 of 40 in each tick mode, 0 of 120 for the bench's
    boot, half of them with a busy loop on that CPU.  It also halves the
    host time of a wakeup (docs/robustness.md, "QEMU's icount race").

    A boot that is typed to stays on every CPU: pinned, QEMU's main loop
    runs only once the vCPU thread halts, and its first pass after the halt
    can warp the idle guest's clock to the next deadline before it reads
    the next typed byte (68.7 s, the LAPIC's reach, inside a pasted
    `uptime; sleep 1000; uptime`: test_smp's exact-time test failed 5 of 15
    runs pinned, 0 of 15 not)."""
    cpu = icount_host_cpu() if host_cpu is None else host_cpu
    return ["taskset", "-c", str(cpu)]


def is_run_driven(append):
    """Whether a boot command line carries run= (the boot types nothing)."""
    return re.search(r"(^|\s)run=", append or "") is not None


def qemu_args(elf=ELF, iso=None, append=None, machine=None, cpu=None,
              icount=None, extra=(), monitor=None, memory=128, qemu="qemu-system-i386",
              pin=None, host_cpu=None, smp=None, uefi=None, serial="stdio", nic=False):
    """QEMU's command line for one boot of lull.

    elf/append    -kernel ELF -append APPEND (Multiboot), unless
    iso           -cdrom ISO (GRUB), booted by the BIOS or, with
    uefi          "x86_64" (OVMF in qemu-system-x86_64) or "i386" (32-bit OVMF
                  with its variable store copied to uefi_vars; see uefi_args)
    machine, cpu  -machine, -cpu; smp: -smp (LULL_SMP=N gives every boot that
                  names no CPU count N CPUs: the whole suite on several CPUs)
    icount        -icount shift=ICOUNT,sleep=off and the CMOS clock from a
                  fixed date (ICOUNT_RTC) unless `extra` sets -rtc itself
    pin           under icount, run on one host CPU (icount_pin: `host_cpu`,
                  or icount_host_cpu()); by default when driven by run=
    monitor       a Unix socket path for QEMU's human monitor
    serial        "stdio" (the console on this process's stdin/stdout)
    nic           keep QEMU's default network card (and its user-mode
                  network's timers in QEMU's main loop): the bench does, so
                  that its host-CPU figures compare with those it recorded
    """
    # -nic none: lull has no network driver, and QEMU's default NIC costs
    # every boot its option ROM (about a tenth of a short boot's host CPU).
    args = [qemu, "-accel", ACCEL, "-m", str(memory),
            "-display", "none"] + ([] if nic else ["-nic", "none"]) + ["-no-reboot",
            # signal=off: a Ctrl-C typed in a test goes to lull, not QEMU.
            "-chardev", f"{serial},id=console,signal=off", "-serial", "chardev:console",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if machine:
        args += ["-machine", machine]
    if cpu:
        args += ["-cpu", cpu]
    if icount is not None:
        args += ["-icount", f"shift={icount},align=off,sleep=off"]
        if "-rtc" not in extra:
            args += ICOUNT_RTC
    if monitor:
        args += ["-monitor", f"unix:{monitor},server,nowait"]
    else:
        args += ["-monitor", "none"]
    if iso:
        args += ["-cdrom", iso]
    else:
        args += ["-kernel", elf]
        if append is not None:
            args += ["-append", append]
    if smp is not None:
        args += ["-smp", str(smp)]
    else:
        # Machines without an APIC (isapc) stay one CPU, as the tests expect.
        env_smp = os.environ.get("LULL_SMP")
        if env_smp and "-smp" not in extra and machine != "isapc":
            args += ["-smp", env_smp]
    args += list(extra)
    if pin is None:
        pin = is_run_driven(append)
    return icount_pin(host_cpu) + args if icount is not None and pin else args


def uefi_args(kind, vars_copy=None):
    """What qemu_args needs for a UEFI boot: (qemu binary, machine, extra).
    kind "x86_64": OVMF in qemu-system-x86_64 -machine q35; "i386": Debian's
    32-bit OVMF, built only with Secure Boot, so SMM on and its flash in two
    parts, the code read-only and `vars_copy`, a writable copy of the empty
    variable store (no keys enrolled: nothing is enforced)."""
    if kind == "x86_64":
        return "qemu-system-x86_64", "q35", ["-bios", OVMF_CODE]
    if kind == "i386":
        return "qemu-system-i386", "q35,smm=on", [
            "-global", "driver=cfi.pflash01,property=secure,value=on",
            "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF32_CODE}",
            "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
    raise ValueError(f"uefi_args: no firmware kind {kind!r}")


# ------------------------------------------------------------ the console

class Lull:
    """One running emulator with lull's serial console on a pty."""

    def __init__(self, args, log_path, timeout):
        self.log_path = log_path
        os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
        self.logf = open(log_path, "w", encoding="utf-8", errors="replace")
        self.logf.write("$ " + " ".join(args) + "\n")
        self.logf.flush()
        self.args = args
        self.child = pexpect.spawn(args[0], args[1:], encoding="utf-8",
                                   codec_errors="replace", timeout=timeout,
                                   echo=False)
        self.child.logfile_read = self.logf
        self.child.delaybeforesend = None
        self.monitor_path = None
        self.started = time.monotonic()
        # The CPUs it boots with (-smp N or -smp cpus=N,...).
        smp = args[args.index("-smp") + 1] if "-smp" in args else "1"
        self.cpus = int(re.match(r"(?:cpus=)?(\d+)", smp).group(1))

    def _wait(self, how, pattern, timeout):
        """child.expect or expect_exact, with QEMU's fate in any failure."""
        try:
            return how(pattern, timeout=timeout)
        except pexpect.EOF:
            self.child.close()
            exit_words = describe_exit(self.child.exitstatus, self.child.signalstatus)
            raise emulator_failure("QEMU stopped", exit_words, self.log_text(),
                                   pattern) from None
        except pexpect.TIMEOUT:
            raise emulator_failure("QEMU went quiet", f"still running after {timeout} s",
                                   self.log_text(), pattern) from None

    def expect(self, pattern, timeout=10):
        """Wait for a regex on the console; return the match object."""
        self._wait(self.child.expect, pattern, timeout)
        return self.child.match

    def expect_exact(self, text, timeout=10):
        self._wait(self.child.expect_exact, text, timeout)

    def wait_prompt(self, timeout=20):
        self._wait(self.child.expect_exact, PROMPT, timeout)
        return self.child.before

    def type(self, text, per_char=0.001):
        """Type like a person: one byte at a time."""
        for ch in text:
            self.child.send(ch)
            if per_char:
                time.sleep(per_char)

    def send(self, raw):
        """Send text at once (a paste).  Text is UTF-8 encoded on the way:
        "\x80" goes out as two bytes, C2 80.  Use send_bytes for raw bytes."""
        self.child.send(raw)

    def send_bytes(self, data):
        """Write these exact bytes to the serial line, 0x80-0xff included."""
        while data:
            data = data[os.write(self.child.child_fd, data):]

    def cmd(self, line, timeout=10):
        """Type a line and Enter; return what it printed before the next prompt."""
        self.type(line + "\r")
        out = self.wait_prompt(timeout)
        out = out.replace("\r\n", "\n")
        # Drop the echo of the line itself.
        first_nl = out.find("\n")
        return out[first_nl + 1:] if first_nl >= 0 else ""

    def wait_exit(self, timeout=20):
        """Wait for QEMU to exit; return its exit status."""
        try:
            self.child.expect(pexpect.EOF, timeout=timeout)
        except pexpect.TIMEOUT:
            raise emulator_failure("QEMU did not exit", f"still running after {timeout} s",
                                   self.log_text()) from None
        self.child.close()
        return self.child.exitstatus

    def alive(self):
        return self.child.isalive()

    def log_text(self):
        if not self.logf.closed:
            self.logf.flush()
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    # -- QEMU monitor (keyboard, VGA memory) -----------------------------
    def monitor(self, command):
        """Run a QEMU human-monitor command; return its output."""
        import socket
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(self.monitor_path)
        buf = b""
        while not buf.endswith(b"(qemu) "):
            buf += s.recv(4096)
        s.sendall(command.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"(qemu) "):
            buf += s.recv(4096)
        s.close()
        return buf.decode(errors="replace")

    def close(self):
        if self.child.isalive():
            self.child.terminate(force=True)
        self.logf.close()


# ------------------------------------------------------------ run= boots

class RunLog:
    """One run= boot's serial log, cut into each command's output."""

    def __init__(self, log, finished, status=None, log_path=None):
        self.log = log.replace("\r", "")
        self.finished = finished      # powered off by itself within the time allowed
        self.status = status          # QEMU's exit status (None: killed at the deadline)
        self.log_path = log_path

    def out(self, cmd, nth=0):
        """What `cmd` printed (its nth run), up to the next prompt."""
        parts = self.log.split(f"{PROMPT}{cmd}\n")
        assert len(parts) > nth + 1, f"`{cmd}` never ran:\n{self.tail()}"
        return re.split(r"^lull> |^run: done", parts[nth + 1], flags=re.M)[0]

    @property
    def outs(self):
        """Every command's output, in the order they ran."""
        before_done = self.log.split("run: done")[0]
        return re.split(r"^lull> .*$", before_done, flags=re.M)[1:]

    @property
    def hz(self):
        """The HZ the kernel was built with (its banner)."""
        return int(re.search(r"built with HZ=(\d+)", self.log).group(1))

    def tail(self, n=2500):
        return self.log[-n:]


def run_line(commands):
    """The run= option for a list of shell commands (the kernel keeps the
    spaces inside double quotes and splits at ';')."""
    for c in commands:
        if ";" in c or '"' in c:
            raise ValueError(f"run=: a command cannot hold ';' or '\"': {c!r}")
    return f'run="{"; ".join(commands)}"'


def run_script(commands, append="", timeout=60, icount=ICOUNT_SHIFT, log_path=None, **kw):
    """Boot lull with `commands` (a list of shell lines) in run=, under
    icount unless told otherwise, and wait for it to power off after the
    last: a RunLog.  Nothing is typed, so guest time between the commands
    is the guest's alone.  A boot still running at `timeout` host seconds
    is killed (RunLog.finished is then False); the caller decides whether
    that fails it (assert_finished)."""
    append = f"{append} {run_line(commands) if commands else ''}".strip()
    return RunLog(*run_to_exit(qemu_args(append=append, icount=icount, **kw), timeout, log_path),
                  log_path)


def run_to_exit(args, timeout, log_path=None):
    """Run an emulator that types nothing and ends by itself: (its output,
    whether it ended within `timeout` host seconds, its exit status or None
    if it was killed).  The command line and the output go to log_path."""
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        log, done, status = p.stdout.decode("utf-8", "replace"), True, p.returncode
    except subprocess.TimeoutExpired as e:
        log, done, status = (e.stdout or b"").decode("utf-8", "replace"), False, None
    if log_path:
        os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
        with open(log_path, "w", encoding="utf-8", errors="replace") as f:
            f.write("$ " + " ".join(args) + "\n" + log)
    return log, done, status


def last_lines(log, n=20):
    """The last n lines of a serial log, as one string."""
    return "\n".join(log.replace("\r", "").rstrip("\n").split("\n")[-n:])


def assert_finished(r, timeout):
    """A run= boot must power off by itself: else what it was waiting for
    and the last 20 serial lines."""
    assert r.finished, (f"lull did not power off within {timeout} s of host time (waiting for "
                        f"'run: done, powering off' after the last command); the last 20 serial "
                        f"lines:\n{last_lines(r.log)}")
