"""Lab wheel (docs/labs/wheel.md): where a timer goes (cascade_bucket_for),
cancelling (bucket_forget), expiry and the cascade (cascade_collect,
wheel_cascade) and the next-expiry query (wheel_earliest), in
kernel/time/timer_cascade.c, timer_bucket.c and timer_expiry.c.  Graded
by the randomized reference-model unit tests
(tests/unit/test_timer_wheel.c, on both wheels), timers with windows
(tests/unit/test_slack.c), a counted next-expiry cost and a booted
kernel on the cascading wheel."""
import re

import pytest

from conftest import assert_unit, boot, expect


@pytest.mark.points(20)
def test_against_the_reference_model():
    """Random arms, re-arms, cancels and runs: the same timers fire on the
    same jiffies as in a plain model, and every next-expiry answer is the
    model's."""
    assert_unit("test_timer_wheel", "test_random_against_model", "test_random_nudges_against_model")


@pytest.mark.points(10)
def test_next_expiry_is_the_earliest_hard_end():
    """Timers with windows (docs/timers.md) on a simulated tickless idle
    loop that sleeps to each next-expiry answer (host test test_slack):
    the answer is the earliest hard end, so every timer fires inside its
    window, and a fixed set of windows costs the fewest wakeups."""
    assert_unit("test_slack", "test_static_windows_optimum", "test_churn_and_piggyback")


@pytest.mark.points(10)
def test_every_level_fires_on_its_exact_jiffy():
    assert_unit("test_timer_wheel", "test_exact_jiffy_every_level", "test_one_long_run_fires_all_in_order")


@pytest.mark.points(10)
def test_cancel_leaves_no_trace():
    """Cancelled timers leave no occupied bucket behind; callbacks cancel
    themselves and timers due in the same run."""
    assert_unit("test_timer_wheel", "test_cancel_leaves_no_trace", "test_callback_deletes_itself",
                "test_callback_deletes_others_due_same_run")


@pytest.mark.points(10)
def test_next_expiry_cost_is_flat():
    """With 10^4 timers pending, a query compares a handful of them, not all
    (struct timer_base's `looked`), and answers exactly."""
    assert_unit("test_timer_wheel", "test_next_expiry_cost_is_flat")


@pytest.mark.points(10)
def test_a_long_skip_costs_no_more_than_a_short_one():
    """The wheel jumps over empty jiffies (a flat cost per skip)."""
    assert_unit("test_timer_wheel", "test_long_skip_is_fast")


@pytest.mark.points(10)
def test_booted_on_the_cascading_wheel():
    """20 periodic wheel timers of 30 to 700 ms for 3 s, across the jiffies
    wrap: every expiry on its jiffy, none early, none late (`timerload`,
    whose wait is the kernel's own, so no other lab decides it)."""
    cmd = "timerload 20 30 700 3 exact wheel"
    b = boot(["wheel", cmd], append="wheel=cascade")
    expect("cascade" in b.out("wheel"), "`wheel` to say the cascading wheel runs", "another wheel",
           b.out("wheel"))
    m = re.search(r"(\d+) fired, .* early (\d+), past hard (\d+)", b.out(cmd))
    expect(m, f"`{cmd}`'s summary line", "none", b.out(cmd))
    fired, early, late = (int(g) for g in m.groups())
    expect(fired >= 100 and early == 0 and late == 0,
           "at least 100 expiries, none early (before its jiffy) and none past it "
           "(cascade_bucket_for, wheel_cascade, cascade_collect)",
           f"{fired} fired, {early} early, {late} past their jiffy", b.out(cmd))
