"""pytest fixtures that boot lull in QEMU and talk to its serial shell,
on the VM library in tests/lullvm (command lines, the console, parsers).

Every test gets `boot`, a factory:

    vm = boot(append="hz=100", machine="isapc", cpu="486")
    out = vm.cmd("uptime")          # type a line, return its output
    vm.expect(r"regex")             # wait for console output
    code = vm.wait_exit()           # QEMU's exit status

and `run`, for a boot that types nothing (run=, powered off after its
last command):

    r = run(["idle 2", "wakeups"], append="tick=dyntick")
    r.out("wakeups")                # what that command printed

Guest time is deterministic by default: every boot runs under
`-icount shift=4,sleep=off` with the CMOS clock on the virtual clock from a
fixed date (lullvm.qemu.ICOUNT_RTC).  A test whose subject is the host's
own clock (how fast a guest second passes for a person, a host that stalls
the guest) passes icount=None and says why in its docstring.

The whole serial log of every boot is written to
build/test-logs/<test name>[-N].log; when a test fails, its tail is printed
in the report.  No test is rerun: a test that fails once has failed.
"""
import glob
import os
import re
import shutil
import tempfile
import time

import pexpect
import pytest

from lullvm.parse import boot_cpu_idle  # noqa: F401  (tests import it from here)
from lullvm.qemu import (ACCEL, BUILD, ELF, EXIT_ACPI_POWEROFF, EXIT_DEBUG_POWEROFF,  # noqa: F401
                         EXIT_SELFTEST_FAIL, EXIT_SELFTEST_PASS, ICOUNT_SHIFT, ISO, LOG_DIR,
                         MACHINE_SHAPES, PROMPT, ROOT, EmulatorFailure, Lull, describe_exit,
                         emulator_failure, icount_host_cpu, icount_pin, qemu_args, run_script,
                         assert_finished)


def boot_cpu_wakeups(vm):
    """The `wakeups` command that shows the boot CPU's causes alone."""
    return "wakeups" if vm.cpus == 1 else "wakeups 0"


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def log_name(request):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)


@pytest.fixture
def boot(request):
    """Factory fixture: boot(...) -> Lull at its first prompt.  Under icount
    (ICOUNT_SHIFT) unless icount=None is passed."""
    os.makedirs(LOG_DIR, exist_ok=True)
    vms = []
    tmp = tempfile.mkdtemp(prefix="lull-test-")
    name = log_name(request)

    def _boot(append="", wait_prompt=True, timeout=30, monitor=False, iso=False,
              icount=ICOUNT_SHIFT, **kw):
        idx = len(vms)
        log = os.path.join(LOG_DIR, f"{name}{'-' + str(idx) if idx else ''}.log")
        mon = os.path.join(tmp, f"mon{idx}.sock") if monitor else None
        args = qemu_args(append=append if not iso else None,
                         iso=ISO if iso else None, monitor=mon, icount=icount, **kw)
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


@pytest.fixture
def run(request):
    """Factory fixture: run(commands, append="", timeout=60, **qemu_args)
    -> a RunLog of a boot driven by run= under icount, which must power off
    by itself (a boot still running at `timeout` fails the test with its
    log's tail).  Its log is build/test-logs/<test>-runN.log."""
    os.makedirs(LOG_DIR, exist_ok=True)
    count = [0]
    logs = []

    def _run(commands, append="", timeout=60, **kw):
        log = os.path.join(LOG_DIR, f"{log_name(request)}-run{count[0]}.log")
        count[0] += 1
        r = run_script(commands, append=append, timeout=timeout, log_path=log, **kw)
        logs.append(r)
        assert_finished(r, timeout)
        return r

    yield _run
    print_run_logs_if_failed(request, logs)


def print_run_logs_if_failed(request, runs):
    """If the test failed, the tail of each RunLog's serial log."""
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        for r in runs:
            print(f"\n----- serial log {r.log_path} (last 3000 chars) -----\n{r.log[-3000:]}")


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


# The modules whose subject is the tick and the timers on the boot CPU and
# that boot one CPU: `make test-smp` (and `make test`) runs them again with
# -smp 4 added to every boot that names no CPU count (LULL_SMP=4), to show
# that other CPUs idling beside the boot CPU change none of it.  (Two CPUs
# once ran them too, and found nothing four did not; test_inject, test_smp
# and test_smp_timers name their CPU counts themselves, 1 to 8, and run
# once.)  By hand, LULL_SMP=N boots any module's tests on N CPUs:
#   LULL_SMP=2 /usr/bin/python3 -m pytest tests/system/test_wheel.py
SMP_AGAIN = {"test_dyntick.py": ("4",), "test_timer_rearm.py": ("4",), "test_wheel.py": ("4",),
             "test_watchdog.py": ("4",), "test_timer_path.py": ("4",)}


# The modules that take longest (tens of seconds: whole-tree builds, lab
# grading, the bench's smoke runs, UEFI firmware, Bochs) run first, so that
# under pytest-xdist no worker is left with one of them at the end while
# the other has nothing to do.  The order of everything else is unchanged.
SLOW_FIRST = ["test_labs_wrong.py", "test_labs.py", "test_bench_smoke.py", "test_untested_paths.py", "test_uefi.py",
              "test_bochs_shell.py", "test_soak.py", "test_linux.py"]


def pytest_collection_modifyitems(config, items):
    smp = os.environ.get("LULL_SMP")
    for item in items:
        # An isapc machine stays one CPU (lullvm.qemu.qemu_args): its
        # repeat would be the same boot again.
        if smp in SMP_AGAIN.get(item.path.name, ()) and "isapc" not in item.name:
            item.add_marker(pytest.mark.smp_again)
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: asserts a range of measured time (guest time under icount, or the "
                   "host's where the docstring says why); never rerun")
    config.addinivalue_line(
        "markers", "smp_again: run again on 4 CPUs by make test-smp (SMP_AGAIN)")
    config.addinivalue_line(
        "markers", "linux: boots the Linux series (make system builds it only when one is selected)")


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
    if false_watchdog_alarms() and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    for alarm in false_watchdog_alarms():
        terminalreporter.line(f"FAILED: a watchdog alarm with no fault injected: {alarm}", red=True)
