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

from lullvm import parse
from lullvm.qemu import BUILD, ELF, ICOUNT_SHIFT, ROOT, RunLog, assert_finished, run_script

Boot = RunLog      # one boot's log, cut into each run= command's output


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): what the test is worth in `make grade`")


def boot(commands, append="", timeout=30, extra=(), icount=True):
    """Boot lull, run `commands` (a list) at the prompt, return its RunLog
    (lullvm.qemu.run_script: under icount, pinned to one host CPU, powered
    off after the last command).  The tick rate is HZ=250 unless `append`
    names one: the graded figures do not depend on the HZ the tree was
    built with (`make HZ=1000`)."""
    assert os.path.exists(ELF), f"{ELF} is missing: `make` first"
    if not re.search(r"(^|\s)hz=", append):
        append = f"hz=250 {append}"
    # icount=False: the host's clock, with the CMOS clock on QEMU's
    # virtual clock all the same.
    b = run_script(commands, append=append, timeout=timeout,
                   extra=list(extra) + ([] if icount else ["-rtc", "clock=vm"]),
                   icount=ICOUNT_SHIFT if icount else None)
    assert_finished(b, timeout)
    return b


CMOCKA = re.compile(r"^\[\s+(OK|FAILED|ERROR)\s+\] (\w+)", re.M)


def unit(name, timeout=300):
    """Build and run the host test build/unit/<name>; {test: passed}, the
    first result of each test name (a crash ends the list)."""
    target = os.path.relpath(os.path.join(BUILD, "unit", name), ROOT)
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
    u = parse.uptime(text)
    return u.seconds, u.jiffies


def idle_rate(text):
    """wakeups a second from `idle`'s line."""
    return parse.idle(text).rate


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
