"""pytest fixtures that boot lull in QEMU and talk to its serial shell.

Every test gets `boot`, a factory:

    vm = boot(append="hz=100", machine="isapc", cpu="486")
    out = vm.cmd("uptime")          # type a line, return its output
    vm.expect(r"regex")             # wait for console output
    code = vm.wait_exit()           # QEMU's exit status

QEMU runs under TCG unless ACCEL=kvm is set (only where hardware
virtualization is real).  The whole serial log of every boot is written to
build/test-logs/<test name>[-N].log; when a test fails, its tail is printed
in the report.

When QEMU exits or stops answering before the text a test waits for, the
test fails with EmulatorFailure: QEMU's exit status (or "still running")
and the tail of what it printed, QEMU's own error lines included (its
stderr shares the pty with the serial console) -- never an empty message.
"""
import glob
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pexpect
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
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

# The machines lull must boot and keep time on (boot(**MACHINE_SHAPES[k])).
MACHINE_SHAPES = {
    "pc": dict(machine="pc"),
    "q35": dict(machine="q35"),
    "pc-no-hpet": dict(machine="pc", extra=["-no-hpet"]),
    "isapc-486": dict(machine="isapc", cpu="486"),
    "isapc-pentium": dict(machine="isapc", cpu="pentium"),
    "pentium3": dict(cpu="pentium3"),
}


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


class Lull:
    """One running QEMU with lull's serial console on a pty."""

    def __init__(self, args, log_path, timeout):
        self.log_path = log_path
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
        # The CPUs it boots with (-smp N or -smp cpus=N,...; LULL_SMP adds one).
        smp = args[args.index("-smp") + 1] if "-smp" in args else "1"
        self.cpus = int(re.match(r"(?:cpus=)?(\d+)", smp).group(1))

    # -- console ---------------------------------------------------------
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


# `idle` and `wakeups` on several CPUs report every CPU summed, then each
# (docs/smp.md).  A test of one CPU's behaviour looks at the boot CPU's.
def boot_cpu_idle(out):
    """`idle`'s output with its first line for the boot CPU alone: on one
    CPU as it is; on several, the first line's span with the figures of
    the `cpu 0:` line (the first line sums every CPU's)."""
    m = re.search(r"^cpu 0: (.*?)\r?$", out, re.M)
    if not m:
        return out
    return re.sub(r"^(idle [\d.]+ s: ).*?(\r?)$", lambda h: h.group(1) + m.group(1) + h.group(2),
                  out, count=1, flags=re.M)


def boot_cpu_wakeups(vm):
    """The `wakeups` command that shows the boot CPU's causes alone."""
    return "wakeups" if vm.cpus == 1 else "wakeups 0"


def icount_host_cpu():
    """The host CPU an -icount boot is pinned to: the last this process may
    use (tools/soak.py picks the same one)."""
    return max(os.sched_getaffinity(0))


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


def qemu_args(elf=ELF, iso=None, append=None, machine=None, cpu=None,
              icount=None, extra=(), monitor=None, memory=128, qemu="qemu-system-i386",
              pin=None, host_cpu=None):
    """QEMU's command line for one boot.  Under -icount it runs pinned to one
    host CPU (icount_pin: `host_cpu`, or the last this process may use) if
    `pin`, or by default if it is driven by run= (which takes no typed input)."""
    args = [qemu, "-accel", ACCEL, "-m", str(memory),
            "-display", "none", "-no-reboot",
            # signal=off: a Ctrl-C typed in a test goes to lull, not QEMU.
            "-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if machine:
        args += ["-machine", machine]
    if cpu:
        args += ["-cpu", cpu]
    if icount is not None:
        args += ["-icount", f"shift={icount},align=off,sleep=off"]
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
    # LULL_SMP=N: every boot that names no CPU count gets -smp N (the whole
    # suite on several CPUs, by hand: LULL_SMP=4 make system; docs/smp.md).
    # Machines without an APIC (isapc) stay one CPU, as the tests expect.
    smp = os.environ.get("LULL_SMP")
    if smp and "-smp" not in extra and machine != "isapc":
        args += ["-smp", smp]
    args += list(extra)
    if pin is None:
        pin = re.search(r"(^|\s)run=", append or "") is not None
    return icount_pin(host_cpu) + args if icount is not None and pin else args


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def boot(request):
    """Factory fixture: boot(...) -> Lull at its first prompt."""
    os.makedirs(LOG_DIR, exist_ok=True)
    vms = []
    tmp = tempfile.mkdtemp(prefix="lull-test-")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def _boot(append="", wait_prompt=True, timeout=30, monitor=False, iso=False, **kw):
        idx = len(vms)
        log = os.path.join(LOG_DIR, f"{name}{'-' + str(idx) if idx else ''}.log")
        mon = os.path.join(tmp, f"mon{idx}.sock") if monitor else None
        args = qemu_args(append=append if not iso else None,
                         iso=ISO if iso else None, monitor=mon, **kw)
        vm = Lull(args, log, timeout)
        vm.monitor_path = mon
        vms.append(vm)
        if monitor:
            deadline = time.monotonic() + 5
            while not os.path.exists(mon) and time.monotonic() < deadline:
                time.sleep(0.01)
        if wait_prompt:
            vm.wait_prompt(timeout)
        return vm

    yield _boot
    close_all(request, vms)
    shutil.rmtree(tmp, ignore_errors=True)


def spawn_make_run(*args):
    """`make run [ARGS]` as a user types it, on a pty: the pexpect child."""
    return pexpect.spawn("make", ["--no-print-directory", "run", *args], cwd=ROOT,
                         encoding="utf-8", codec_errors="replace", timeout=90)


def close_all(request, vms):
    """Stop a test's emulators; if the test failed, print each one's log tail."""
    failed = getattr(request.node, "rep_call", None)
    for vm in vms:
        vm.close()
        if failed is not None and failed.failed:
            tail = vm.log_text()[-3000:]
            print(f"\n----- serial log {vm.log_path} (last 3000 chars) -----\n{tail}")


@pytest.fixture
def vm(boot):
    """A default machine at its prompt."""
    return boot()


# Timing assertions run under emulation on a shared host: a stall of the
# host (not of lull) can stretch one measurement, as the calibration and
# benchmark notes explain.  A test that asserts a range of measured time
# (a rate, a drift, a latency, a duration against the host's clock) is
# marked @pytest.mark.timing and gets one rerun; a real timing bug fails
# both runs.  No other test is rerun: a flaky shell or driver bug must fail.
# Every rerun is listed at the end with the message of the failure that
# caused it, so a test that only passes the second time is still seen.
# (pytest-rerunfailures, Debian's python3-pytest-rerunfailures.)
TIMING_RERUNS = 1
# More reruns than this in one run fails it, even if every rerun passed: a
# few host stalls per suite are normal here (0-1 in a full run on an idle
# 2-core machine); a handful means something in lull has become flaky.
MAX_RERUNS_PER_RUN = 3


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: asserts a range of measured time; one rerun if it fails "
                   "(a host stall can stretch a measurement)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("timing"):
            item.add_marker(pytest.mark.flaky(reruns=TIMING_RERUNS))


def first_failure_message(report):
    """The line a rerun is remembered by: where the first run failed, and how."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None:
        lines = str(report.longrepr).strip().splitlines()
        return lines[-1] if lines else "(no message)"
    message = crash.message.strip().splitlines()
    where = f"{os.path.basename(crash.path)}:{crash.lineno}"
    return f"{where}: {message[0] if message else '(no message)'}"


def reruns_of(session_or_config):
    config = getattr(session_or_config, "config", session_or_config)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return reporter.stats.get("rerun", []) if reporter else []


# The clocksource watchdog must never raise a false alarm: after the run,
# every serial log this session wrote is read, and an alarm ("marked
# unstable: watchdog") in one where no counter fault was injected fails the
# run (kernel/time/watchdog.c; docs/robustness.md).
SESSION_START = time.time()
WATCHDOG_ALARM = "marked unstable: watchdog"
COUNTER_FAULT = re.compile(r"inject (tsc-step|tsc-skew|clocksource-stall)")


def false_watchdog_alarms():
    found = []
    for log in sorted(glob.glob(os.path.join(LOG_DIR, "*.log"))):
        if os.path.getmtime(log) < SESSION_START:
            continue
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if WATCHDOG_ALARM in text and not COUNTER_FAULT.search(text):
            line = next(l for l in text.splitlines() if WATCHDOG_ALARM in l)
            found.append(f"{os.path.basename(log)}: {line.strip()}")
    return found


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if len(reruns_of(session)) > MAX_RERUNS_PER_RUN and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if false_watchdog_alarms() and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    for alarm in false_watchdog_alarms():
        terminalreporter.line(f"FAILED: a watchdog alarm with no fault injected: {alarm}", red=True)
    reruns = terminalreporter.stats.get("rerun", [])
    if not reruns:
        return
    if len(reruns) > MAX_RERUNS_PER_RUN:
        terminalreporter.line(f"FAILED: {len(reruns)} reruns, more than the "
                              f"{MAX_RERUNS_PER_RUN} conftest.py allows in one run", red=True)
    terminalreporter.section(f"{len(reruns)} rerun(s) of timing tests, each with the failure "
                             "that caused it", sep="=", yellow=True)
    for report in reruns:
        terminalreporter.line(f"RERUN {report.nodeid} ({report.when}) - "
                              f"{first_failure_message(report)}")
