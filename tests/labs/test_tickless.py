"""Lab tickless (docs/labs/tickless.md): next_timer_on in
kernel/time/tick_sched.c, the earliest of the wheel's and the hrtimers'
next expiries, which the idle loop programs as a one-shot."""
import re

import pytest

from conftest import assert_unit, boot, expect, idle_rate


@pytest.mark.points(20)
def test_programs_the_deadline_on_a_fake_clock():
    assert_unit("test_tick", "test_tickless_programs_the_deadline")


@pytest.mark.points(10)
def test_the_earliest_timer_to_the_ns_on_a_fake_clock():
    """next_timer_on's answer, to the ns: a wheel timer at its jiffy's
    boundary at HZ=100, 1000 and 250; an hrtimer alone, before and after
    a wheel timer; a jiffy already past due now."""
    assert_unit("test_tick", "test_tickless_next_timer_is_the_earliest")


@pytest.fixture(scope="module")
def run():
    return boot(["idle 5", "every 500", "idle 3", "every off", "wakeups reset",
                 "latency 20 100000", "wakeups"], append="tick=tickless")


@pytest.mark.points(15)
def test_idle_wakes_at_most_once_a_second(run):
    rate = idle_rate(run.out("idle 5"))
    expect(rate <= 1.0, "tickless idle with nothing armed: at most 1 wakeup/s", f"{rate} wakeups/s",
           run.out("idle 5"))


@pytest.mark.points(15)
def test_a_wheel_timer_is_the_only_wakeup(run):
    """every 500: two wakeups a second, not HZ."""
    rate = idle_rate(run.out("idle 3"))
    expect(1.5 <= rate <= 2.5, "`every 500`: 1.5 to 2.5 wakeups/s, the timer's own",
           f"{rate} wakeups/s", run.out("every 500") + run.out("idle 3"))


@pytest.mark.points(15)
def test_latency_with_one_wakeup_per_sample(run):
    """20 hrtimer samples 100 ms apart: each its own wakeup, none for a
    tick in between, and each on time."""
    out = run.out("latency 20 100000")
    m = re.search(r"latency: n=20 period=100000us min=\d+ avg=[\d.]+ p50=(\d+) p99=(\d+)", out)
    expect(m, "`latency 20 100000`'s summary line", "none", out)
    expect(int(m.group(2)) <= 100, "each sample's callback within 100 us of its deadline (p99)",
           f"p99 {m.group(2)} us (is the one-shot programmed for the hrtimer's deadline?)", out)
    w = re.search(r"wakeups in the last [\d.]+ s: (\d+)", run.out("wakeups"))
    expect(w and int(w.group(1)) <= 22, "at most 22 wakeups for 20 samples: none for a tick between",
           f"{w.group(1) if w else 'no'} wakeups", run.out("wakeups"))
