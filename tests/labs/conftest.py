"""Shared pieces of the labs' graded tests (tests/labs/test_<lab>.py; run
by tools/grade.py, `make grade`).

Every graded test carries @pytest.mark.points(N).  Boots run lull from
build/lull.elf with the run= boot option, which powers off after its last
command, under QEMU's -icount (guest time counts instructions), so a score
does not depend on how busy the student's machine is.  Nothing here waits
without a deadline: a graded boot may run GUEST_DEADLINE_S of guest time
(the kernel's deadline= option powers it off and names the command it
cut), with a host-time backstop behind it; either way the check fails
with the last 20 serial lines.  A failed check says what it expected,
what it saw and the kernel's (or the host test's) own lines (expect()).
"""
import os
import pty
import re
import select
import subprocess
import time

import pytest

from lullvm import parse
from lullvm.labs import GUEST_DEADLINE_S, HOST_BACKSTOP_S, boot_append
from lullvm.qemu import (BUILD, ELF, ICOUNT_SHIFT, ROOT, RunLog, assert_finished, last_lines, qemu_args,
                          run_to_exit)

Boot = RunLog      # one boot's log, cut into each run= command's output


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): what the test is worth in `make grade`")


_elf_fresh = []


def fresh_elf(timeout=600):
    """build/lull.elf up to date with the tree, made once per session
    (tools/grade.py has made it already; a run of the checks alone, as
    tests/system/test_labs_wrong.py does, has not): a check that boots
    must boot the code it grades."""
    if not _elf_fresh:
        target = os.path.relpath(ELF, ROOT)
        mk = subprocess.run(["make", "--no-print-directory", "-s", f"-j{os.cpu_count() or 1}", target],
                            cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        if mk.returncode != 0:
            pytest.fail(f"the kernel does not build:\n{mk.stdout[-2000:]}{mk.stderr[-2000:]}", pytrace=False)
        _elf_fresh.append(True)


def boot(commands, append="", extra=()):
    """Boot lull, run `commands` (a list) at the prompt, return its RunLog:
    the command line tools/grade.py --qemu prints (lullvm.labs.boot_command:
    under icount, HZ=250 unless `append` names one, deadline=), pinned to
    one host CPU.  With no commands (the selftest boot) the kernel ends the
    boot itself."""
    fresh_elf()
    args = qemu_args(append=boot_append(commands, append), icount=ICOUNT_SHIFT, extra=list(extra))
    b = RunLog(*run_to_exit(args, HOST_BACKSTOP_S))
    cut = re.search(r"run: deadline of \d+ s \(guest time\) passed while running '([^']*)'", b.log)
    if cut:
        pytest.fail(f"the kernel was still running '{cut.group(1)}' after {GUEST_DEADLINE_S} s of "
                    f"guest time, the grader's deadline (a sleep that never ends? a timer never "
                    f"fired?); the last 20 serial lines:\n{last_lines(b.log)}", pytrace=False)
    assert_finished(b, HOST_BACKSTOP_S)
    return b


CMOCKA = re.compile(r"^\[\s+(OK|FAILED|ERROR)\s+\] (\w+)", re.M)


def run_on_a_terminal(argv, timeout):
    """Run argv with stdout and stderr on one pseudo-terminal, so that a
    cmocka test's own error lines (stderr) come out inside its RUN ...
    FAILED block (stdout, line-buffered on a terminal) instead of after
    every block; its output, cut at `timeout` seconds."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    out, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if not ready:
                if p.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:         # EIO: the program ended
                break
            if not data:
                break
            out += data
    finally:
        os.close(master)
        if p.poll() is None:
            p.kill()
        p.wait()
    return out.decode("utf-8", "replace").replace("\r\n", "\n")


# What each host test binary printed, by (path, mtime, size): several
# checks read one binary's results (test_wheel's five read test_timer_wheel,
# 1.5 s a run), and a binary that make did not rebuild prints the same
# lines again (its random tests use fixed seeds).
_unit_runs = {}
_unit_built = set()     # binaries made in this session: make once each (0.6 s of CPU a call)


def unit(name, timeout=300):
    """Build and run the host test build/unit/<name>; {test: passed}, a
    test passed if every run of it did (a test may run once per wheel,
    say); a crash ends the list.  Run once per build of the binary."""
    target = os.path.relpath(os.path.join(BUILD, "unit", name), ROOT)
    if target not in _unit_built:       # (the tree does not change during a grade)
        mk = subprocess.run(["make", "--no-print-directory", "-s", target], cwd=ROOT,
                            capture_output=True, text=True, timeout=timeout)
        assert mk.returncode == 0, f"{target} does not build:\n{mk.stdout[-2000:]}{mk.stderr[-2000:]}"
        _unit_built.add(target)
    st = os.stat(os.path.join(ROOT, target))
    key = (target, st.st_mtime_ns, st.st_size)
    if key not in _unit_runs:
        _unit_runs[key] = run_on_a_terminal([os.path.join(ROOT, target)], timeout)
    out = _unit_runs[key]
    results = {}
    for status, test in CMOCKA.findall(out):
        results[test] = results.get(test, True) and status == "OK"
    return results, out


def unit_block(out, test):
    """What the host test printed while `test` ran (its first run that did
    not pass, else its first): from its RUN line to its result, with every
    `lab NAME: not implemented` line."""
    blocks = re.findall(rf"^\[ RUN\s+\] {re.escape(test)}\n(.*?)^\[\s+(OK|FAILED|ERROR)\s+\] {re.escape(test)}",
                        out, re.M | re.S)
    failed = [b for b, status in blocks if status != "OK"]
    block = (failed or [b for b, _ in blocks] or [""])[0].rstrip()
    stubs = sorted(set(re.findall(r"^lab \w+: not implemented.*$", out, re.M)))
    return "\n".join(stubs + ([block] if block else []))


def assert_unit(name, *tests):
    """Each of `tests` in build/unit/<name> passed; else, for the first
    that did not, the host test's own lines (its assert's file and line)."""
    results, out = unit(name)
    for t in tests:
        if results.get(t) is True:
            continue
        seen = "it failed" if t in results else "it did not run (the test program crashed before it?)"
        said = unit_block(out, t) or last_lines(out)
        expect(False, f"host test {name}: {t} passes", seen, said, "the host test printed")


def expect(ok, expected, seen, said="", who="the kernel printed"):
    """A graded check: if not ok, fail with what was expected, what was
    seen, and the lines that say why (the kernel's, or a host test's)."""
    if ok:
        return
    said = "\n".join("  " + l for l in said.replace("\r", "").strip("\n").split("\n")) if said.strip() else ""
    pytest.fail(f"expected: {expected}\nseen:     {seen}" + (f"\n{who}:\n{said}" if said else ""),
                pytrace=False)


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
    for i, ((t0, j0), (t1, j1)) in enumerate(zip(readings, readings[1:])):
        ticks = (j1 - j0) % 2**32
        want = (t1 - t0) * hz
        expect(abs(ticks - want) <= 1.01,
               f"jiffies to advance by the ticks that passed: {want:.1f} (+-1) in {t1 - t0:.6f} s at HZ={hz}",
               f"{ticks} (jiffies {j0} -> {j1})",
               b.out("uptime", i) + b.out("uptime", i + 1))


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
                         "passed": rep.passed, "why": clip(why)})


def clip(why, lines=40, width=300):
    """A failure's message as a student reads it: pytest's own rewriting
    of the assert (lines starting "assert", "where", "+") dropped, at most
    `lines` lines of at most `width` characters."""
    kept = [l[:width] for l in why.rstrip().split("\n")
            if not re.match(r"\s*(assert |where |\+ |and |\+\s)", l)]
    return "\n".join(kept[:lines] + (["..."] if len(kept) > lines else []))


def pytest_sessionfinish(session):
    path = os.environ.get("LAB_RESULTS")
    if path:
        import json
        with open(path, "w") as f:
            json.dump(_results, f)
