"""Lab tickless (docs/labs/tickless.md): next_timer_on in
kernel/time/tick_sched.c, the earliest of the wheel's and the hrtimers'
next expiries, which the idle loop programs as a one-shot."""
import re

import pytest

from conftest import assert_unit, boot, idle_rate


@pytest.mark.points(20)
def test_programs_the_deadline_on_a_fake_clock():
    assert_unit("test_tick", "test_tickless_programs_the_deadline")


@pytest.fixture(scope="module")
def run():
    return boot(["idle 5", "every 500", "idle 3", "every off", "wakeups reset",
                 "latency 20 100000", "wakeups"], append="tick=tickless")


@pytest.mark.points(15)
def test_idle_wakes_at_most_once_a_second(run):
    assert idle_rate(run.out("idle 5")) <= 1.0, run.out("idle 5")


@pytest.mark.points(15)
def test_a_wheel_timer_is_the_only_wakeup(run):
    """every 500: two wakeups a second, not HZ."""
    assert 1.5 <= idle_rate(run.out("idle 3")) <= 2.5, run.out("idle 3")


@pytest.mark.points(15)
def test_latency_with_one_wakeup_per_sample(run):
    """20 hrtimer samples 100 ms apart: each its own wakeup, none for a
    tick in between, and each on time."""
    out = run.out("latency 20 100000")
    m = re.search(r"latency: n=20 period=100000us min=\d+ avg=[\d.]+ p50=(\d+) p99=(\d+)", out)
    assert m, out
    assert int(m.group(2)) <= 100, f"p99 {m.group(2)} us"
    w = re.search(r"wakeups in the last [\d.]+ s: (\d+)", run.out("wakeups"))
    assert w and int(w.group(1)) <= 22, run.out("wakeups")
