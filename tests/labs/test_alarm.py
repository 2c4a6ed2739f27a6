"""Lab alarm (docs/labs/alarm.md): sleeper_arm, sleeper_wake, sleep_ticks
and sleep_ns in kernel/sleep.c, graded by lull's versions of Pintos' alarm
tests (`alarm TEST`, kernel/shell/cmd_alarm.c) and by what sleeping costs."""
import re

import pytest

from conftest import boot, uptime

TESTS = ["single", "multiple", "simultaneous", "order", "zero", "negative"]


@pytest.fixture(scope="module")
def run():
    return boot(["tick tickless"] + [f"alarm {t}" for t in TESTS] + ["uptime", "sleep 250", "uptime"])


@pytest.mark.points(5)
@pytest.mark.parametrize("test", TESTS)
def test_pintos_alarm(run, test):
    out = run.out(f"alarm {test}")
    assert f"alarm {test}: PASS" in out, out


@pytest.mark.points(10)
def test_five_simultaneous_sleepers_cost_one_wakeup_a_round(run):
    """Five rounds of five sleepers due on one tick: five wakeups (one more
    allowed for the command's start), the CPU halted in between."""
    out = run.out("alarm simultaneous")
    m = re.search(r"alarm simultaneous: (\d+) wakeups in (\d+) ms, halted (\d+)%", out)
    assert m and "PASS" in out, out
    wakeups, halted = int(m.group(1)), int(m.group(3))
    assert 5 <= wakeups <= 6, f"{wakeups} wakeups for 5 rounds"
    assert halted >= 90, f"halted only {halted}%: is it spinning?"


@pytest.mark.points(10)
def test_sleep_ns_on_an_hrtimer(run):
    """sleep 250 (sleep_ns) ends 250 ms later, not before, within 1 ms."""
    (t0, _), (t1, _) = uptime(run.out("uptime", 0)), uptime(run.out("uptime", 1))
    assert "error" not in run.out("sleep 250"), run.out("sleep 250")
    assert 0.250 <= t1 - t0 <= 0.251, f"sleep 250 took {(t1 - t0) * 1000:.3f} ms"
