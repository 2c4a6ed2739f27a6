"""Lab alarm (docs/labs/alarm.md): sleeper_arm, sleeper_wake, sleep_ticks
and sleep_ns in kernel/sleep.c, graded by a host test of arming and waking
(tests/unit/test_sleep.c), lull's versions of Pintos' alarm tests (`alarm
TEST`, kernel/shell/cmd_alarm.c), what sleeping costs, and Ctrl-C."""
import re

import pytest

from conftest import assert_unit, boot, expect, uptime

HZ = 250      # the graders' default (conftest.boot)
# The periodic tick on Linux 4.8's wheel: no other lab's code (the wheel
# lab's cascade, the tickless lab's stopped tick) decides this lab's grade.
APPEND = "tick=periodic wheel=level"
TESTS = ["single", "multiple", "simultaneous", "order", "zero", "negative"]


@pytest.fixture(scope="module")
def run():
    return boot([f"alarm {t}" for t in TESTS] + ["alarm sleep", "uptime", "sleep 250", "uptime"],
                append=APPEND)


@pytest.mark.points(10)
def test_sleeper_arm_and_wake():
    """On a fake wheel: the timer n jiffies after armed_jiffy, armed with
    interrupts off; <= 0 ticks wakes at once with no timer; beyond 2^31 - 1
    is -EINVAL; sleeper_wake sets woke and woke_jiffy before notify."""
    assert_unit("test_sleep", "test_arm_sets_the_timer_ticks_ahead",
                "test_wake_notes_the_jiffy_then_notifies",
                "test_zero_or_less_wakes_at_once_without_a_timer",
                "test_beyond_the_wheels_range_is_refused")


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
           f"{(t1 - t0) * 1000:.3f} ms" +
           (" (too early: is the hrtimer due ns after ktime_get_ns()?)" if t1 - t0 < 0.25 else ""), said)


@pytest.mark.points(5)
def test_sleep_ticks_ends_on_its_tick_halted(run):
    """`alarm sleep`: five sleep_ticks(10) with another interrupt every 3 ms:
    each on its tick, no timer left, the CPU halted while it waits."""
    out = run.out("alarm sleep")
    m = re.search(r"alarm sleep: (\d+) wakeups in (\d+) ms, halted (\d+)%", out)
    expect(m and "alarm sleep: PASS" in out, "'alarm sleep: PASS': sleep_ticks(10) ends on its tick",
           (re.findall(r"^alarm sleep: FAIL.*$", out, re.M) or ["no verdict line"])[0], out)
    halted = int(m.group(3))
    expect(halted >= 90, "the CPU halted at least 90% of the time while sleep_ticks waited",
           f"halted {halted}% (does sleep_ticks poll instead of halting in wait_event?)", out)


@pytest.mark.points(5)
def test_ctrl_c_ends_a_sleep_and_leaves_no_timer():
    """`alarm interrupt`: Ctrl-C 100 ms into a 1 s sleep_ticks, then
    sleep_ns: -EINTR at once, and nothing left queued.  Its own boot, so
    a sleep that goes wrong there spoils no other check."""
    b = boot(["alarm interrupt"], append=APPEND)
    out = b.out("alarm interrupt")
    expect("alarm interrupt: PASS" in out, "'alarm interrupt: PASS': Ctrl-C ends sleep_ticks and sleep_ns",
           (re.findall(r"^alarm interrupt: FAIL.*$", out, re.M) or ["no verdict line"])[0], out)
