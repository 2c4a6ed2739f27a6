"""Lab alarm (docs/labs/alarm.md): sleeper_arm, sleeper_wake, sleep_ticks
and sleep_ns in kernel/sleep.c, graded by lull's versions of Pintos' alarm
tests (`alarm TEST`, kernel/shell/cmd_alarm.c) and by what sleeping costs."""
import re

import pytest

from conftest import boot, expect, uptime

HZ = 250      # the graders' default (conftest.boot)
TESTS = ["single", "multiple", "simultaneous", "order", "zero", "negative"]


@pytest.fixture(scope="module")
def run():
    return boot([f"alarm {t}" for t in TESTS] + ["uptime", "sleep 250", "uptime"], append="tick=periodic wheel=level")


@pytest.mark.points(5)
@pytest.mark.parametrize("test", TESTS)
def test_pintos_alarm(run, test):
    out = run.out(f"alarm {test}")
    expect(f"alarm {test}: PASS" in out, f"'alarm {test}: PASS'",
           (re.findall(rf"^alarm {test}: FAIL.*$", out, re.M) or ["no verdict line"])[0], out)


@pytest.mark.points(10)
def test_five_simultaneous_sleepers_halt_between_rounds(run):
    """Five rounds of five sleepers due on one tick, under the periodic
    tick (a stopped tick would run the tickless lab's code): no wakeup
    beyond the ticks that passed (one more for the command's start), and
    the CPU halted in between, not spinning on jiffies."""
    out = run.out("alarm simultaneous")
    m = re.search(r"alarm simultaneous: (\d+) wakeups in (\d+) ms, halted (\d+)%", out)
    expect(m and "PASS" in out, "'alarm simultaneous: PASS' and its wakeups line",
           (re.findall(r"^alarm simultaneous: FAIL.*$", out, re.M) or ["no verdict line"])[0], out)
    wakeups, ms, halted = (int(g) for g in m.groups())
    ticks = ms * HZ // 1000
    expect(wakeups <= ticks + 1, f"at most one wakeup per tick: {ticks + 1} in {ms} ms at HZ={HZ}",
           f"{wakeups} wakeups (does each sleeper wake the CPU on its own?)", out)
    expect(halted >= 90, "the CPU halted at least 90% of the time between rounds",
           f"halted {halted}% (is the wait spinning instead of wait_event?)", out)


@pytest.mark.points(10)
def test_sleep_ns_on_an_hrtimer(run):
    """sleep 250 (sleep_ns) ends 250 ms later, not before, and within 5 ms
    (under the periodic tick an hrtimer runs on the tick after its
    deadline: 4 ms at HZ=250, plus the commands around it)."""
    (t0, _), (t1, _) = uptime(run.out("uptime", 0)), uptime(run.out("uptime", 1))
    said = run.out("uptime", 0) + run.out("sleep 250") + run.out("uptime", 1)
    expect("error" not in run.out("sleep 250"), "`sleep 250` without an error", "an error line", said)
    expect(0.250 <= t1 - t0 <= 0.255, "sleep_ns: `sleep 250` takes 250 to 255 ms between the two uptimes",
           f"{(t1 - t0) * 1000:.3f} ms" + (" (too early: was the hrtimer armed?)" if t1 - t0 < 0.25 else ""),
           said)
