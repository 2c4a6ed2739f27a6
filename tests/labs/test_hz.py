"""Lab hz (docs/labs/hz.md): the article's question with your own numbers.
The code part is power_estimate_uw in kernel/lib/power_model.c; the rest
is written: answers-hz.txt, from `make bench` (`make grade` reminds you)."""
import re

import pytest

from conftest import assert_unit, boot, expect


@pytest.mark.points(20)
def test_the_model_meets_the_articles_points():
    assert_unit("test_power_model", "test_the_articles_two_points", "test_a_straight_line", "test_busy_share")


@pytest.mark.points(10)
def test_power_next_to_wakeups():
    b = boot(["power 2", "hz 100", "power 2"], append="tick=periodic hz=1000")
    est = []
    for i in range(2):
        m = re.search(r"estimate [\d.]+ W \(([\d.]+) W from the wakeups", b.out("power 2", i))
        expect(m, "`power 2` to print an estimate (power_estimate_uw)", "none", b.out("power 2", i))
        est.append(float(m.group(1)))
    expect(abs(est[0] - 8.15) <= 0.005, "periodic at HZ=1000: 8.15 W from the wakeups (the article's point)",
           f"{est[0]} W", b.out("power 2", 0))
    expect(abs(est[1] - 7.59) <= 0.005, "periodic at HZ=100: 7.59 W from the wakeups (the article's "
           "other point)", f"{est[1]} W", b.out("power 2", 1))
