"""Shared pieces of the labs' graded tests (tests/labs/test_<lab>.py; run
by tools/grade.py, `make grade`).

Every graded test carries @pytest.mark.points(N).  Boots run lull from
build/lull.elf with the run= boot option, which powers off after its last
command, under QEMU's -icount (guest time counts instructions), so a score
does not depend on how busy the student's machine is.  Nothing here waits
without a deadline: a kernel that never powers off is killed and the test
fails with its log's tail.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
ELF = os.path.join(ROOT, BUILD, "lull.elf")
ICOUNT = ["-icount", "shift=4,align=off,sleep=off", "-rtc", "clock=vm,base=2026-01-01T00:00:00"]
# An -icount boot driven by run= runs on one host CPU: with QEMU's vCPU
# thread and main loop on two, a wakeup now and then comes some
# instructions late (icount_pin in tests/system/conftest.py tells why).
PIN = ["taskset", "-c", str(max(os.sched_getaffinity(0)))]


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): what the test is worth in `make grade`")


class Boot:
    """One boot's serial log, cut into each run= command's output."""

    def __init__(self, log, finished):
        self.log = log.replace("\r", "")
        self.finished = finished

    def out(self, cmd, nth=0):
        """What `cmd` printed (its nth run), up to the next prompt."""
        parts = self.log.split(f"lull> {cmd}\n")
        assert len(parts) > nth + 1, f"`{cmd}` never ran:\n{self.tail()}"
        return re.split(r"^lull> |^run: done", parts[nth + 1], flags=re.M)[0]

    def tail(self, n=2500):
        return self.log[-n:]


def boot(commands, append="", timeout=30, extra=(), icount=True):
    """Boot lull, run `commands` (a list) at the prompt, return a Boot.
    The tick rate is HZ=250 unless `append` names one: the graded figures
    do not depend on the HZ the tree was built with (`make HZ=1000`)."""
    assert os.path.exists(ELF), f"{ELF} is missing: `make` first"
    if not re.search(r"(^|\s)hz=", append):
        append = f"hz=250 {append}"
    run = "; ".join(commands)
    args = ["qemu-system-i386", "-accel", "tcg", "-m", "128", "-display", "none", "-no-reboot",
            "-serial", "stdio", "-monitor", "none",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-kernel", ELF, "-append", f'{append} run="{run}"'.strip()]
    args += (ICOUNT if icount else ["-rtc", "clock=vm"]) + list(extra)
    args = (PIN if icount else []) + args
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        log, done = p.stdout.decode("utf-8", "replace"), True
    except subprocess.TimeoutExpired as e:
        log, done = (e.stdout or b"").decode("utf-8", "replace"), False
    b = Boot(log, done)
    assert done, f"lull did not power off within {timeout} s:\n{b.tail()}"
    return b


CMOCKA = re.compile(r"^\[\s+(OK|FAILED|ERROR)\s+\] (\w+)", re.M)


def unit(name, timeout=300):
    """Build and run the host test build/unit/<name>; {test: passed}, the
    first result of each test name (a crash ends the list)."""
    target = os.path.join(BUILD, "unit", name)
    mk = subprocess.run(["make", "--no-print-directory", "-s", target], cwd=ROOT,
                        capture_output=True, text=True, timeout=timeout)
    assert mk.returncode == 0, f"{target} does not build:\n{mk.stdout[-2000:]}{mk.stderr[-2000:]}"
    try:
        p = subprocess.run([os.path.join(ROOT, target)], cwd=ROOT, capture_output=True,
                           text=True, timeout=timeout)
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    results = {}
    for status, test in CMOCKA.findall(out):
        results.setdefault(test, status == "OK")
    return results, out


def assert_unit(name, *tests):
    results, out = unit(name)
    for t in tests:
        assert results.get(t) is True, f"{name}: {t} " + \
            ("failed" if t in results else "did not run (a crash before it?)") + f"\n{out[-2500:]}"


def uptime(text):
    """(seconds, jiffies) from `uptime`'s line."""
    m = re.search(r"up (\d+)\.(\d{9}) s, jiffies (\d+)", text)
    assert m, text
    return int(m.group(1)) + int(m.group(2)) / 1e9, int(m.group(3))


def idle_rate(text):
    """wakeups a second from `idle`'s line."""
    m = re.search(r"idle [\d.]+ s: (\d+) wakeups \(([\d.]+)/s\)", text)
    assert m, text
    return float(m.group(2))


def jiffies_follow_the_clock(b, cmds, hz=250):
    """Between each pair of `uptime`s the jiffies advanced by the whole
    ticks that passed, within one (the two readings are not at the same
    point of a tick)."""
    readings = [uptime(b.out("uptime", i)) for i in range(cmds)]
    for (t0, j0), (t1, j1) in zip(readings, readings[1:]):
        ticks = (j1 - j0) % 2**32
        want = (t1 - t0) * hz
        assert abs(ticks - want) <= 1.01, f"{ticks} jiffies in {t1 - t0:.6f} s at HZ={hz} ({want:.1f})"


# ---- for tools/grade.py: each graded test's outcome and points
_results = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" or (rep.when == "setup" and not rep.passed):
        m = item.get_closest_marker("points")
        why = ""
        if rep.failed:
            crash = getattr(rep.longrepr, "reprcrash", None)
            why = crash.message if crash else str(rep.longrepr)
        _results.append({"test": item.nodeid.split("::", 1)[1], "points": m.args[0] if m else 0,
                         "passed": rep.passed, "why": why.splitlines()[0][:200] if why else ""})


def pytest_sessionfinish(session):
    path = os.environ.get("LAB_RESULTS")
    if path:
        import json
        with open(path, "w") as f:
            json.dump(_results, f)
