"""`latency ... breakdown`: where a wakeup's time goes between a timer's
deadline and its callback, stage by stage (include/time/path.h), under
-icount shift=4, where guest time is a count of instructions (16 ns each)
and two runs give the same figures.

The stages must add up: the stages from entry to the callback are the
latency less the part before entry, and each is in stamp order; a stage
stamped out of order (the watchdog moved back in front of the hrtimers,
say) makes a difference wrap to a huge number.  And the order the path
promises: the hrtimer's callback comes before the tick's own bookkeeping
(the timer wheel, the clocksource watchdog), which therefore counts after
the callback."""
import pytest

from lullvm import parse

BEFORE_CALLBACK = ["stack guard", "irq enter", "handler", "eoi", "hrtimers"]
AFTER_CALLBACK = ["callbacks", "wheel", "reprogram", "watchdog", "exit"]


def breakdown(out):
    out = out.replace("\r", "")
    lat = parse.latency(out)
    bd = lat.breakdown
    assert bd, out
    # The stages with an average and a slowest (the row before entry has no slowest).
    stages = {name: (a, s) for name, (a, s) in bd.stages.items() if s is not None}
    before = bd.stages.get("deadline to entry")
    to_cb, entry, after = (bd.totals.get(k) for k in ("deadline to callback", "entry to the callback",
                                                        "after the callback"))
    assert to_cb and to_cb[1] is None and after and after[1] is not None and before and before[1] is None \
        and entry and entry[1] is not None, out
    return dict(n=lat.n, avg_us=lat.avg, paths=bd.wakeups,
                stages=stages, before=before[0],
                to_cb=[to_cb[0], *entry],
                after=list(after))


@pytest.mark.parametrize("mode", ["tickless", "periodic"])
def test_breakdown_adds_up_in_stamp_order(boot, mode):
    vm = boot(f"tick={mode}", icount=4)
    b = breakdown(vm.cmd("latency 200 1000 breakdown", timeout=30))
    assert b["n"] == 200 and b["paths"] >= 200, b
    assert list(b["stages"]) == BEFORE_CALLBACK + AFTER_CALLBACK, b["stages"]
    for name, (avg, slowest) in b["stages"].items():
        # In stamp order every stage is short: a reordered stamp wraps.
        assert 0 <= avg < 1_000_000 and 0 <= slowest < 1_000_000, (name, avg, slowest)
    avg_ns, from_entry, slow_to_cb = b["to_cb"]
    assert abs(avg_ns - b["avg_us"] * 1000) < 100, b             # the latency itself
    assert from_entry == sum(a for n, (a, s) in b["stages"].items() if n in BEFORE_CALLBACK)
    assert slow_to_cb == sum(s for n, (a, s) in b["stages"].items() if n in BEFORE_CALLBACK)
    assert slow_to_cb >= from_entry
    assert b["before"] == avg_ns - from_entry
    assert b["after"][0] == sum(a for n, (a, s) in b["stages"].items() if n in AFTER_CALLBACK)
    # The hrtimer is served before the tick's own work: the wheel and the
    # watchdog ran (the boot CPU's watchdog, every interrupt) after it.
    assert b["stages"]["watchdog"][0] > 0 and b["stages"]["wheel"][0] > 0, b["stages"]


def test_breakdown_is_the_same_twice_under_icount(boot):
    """Guest time is instructions: two boots, the same stage figures (a
    few instructions apart at most: a sample can land a jiffy apart)."""
    runs = []
    for _ in range(2):
        vm = boot("run=latency,200,1000,breakdown", icount=4, wait_prompt=False)
        vm.expect(r"= after the callback +\d+ +\d+\r*\n", timeout=60)   # the whole line
        runs.append(breakdown(vm.log_text()))
    a, b = runs
    for name in BEFORE_CALLBACK + AFTER_CALLBACK:
        assert abs(a["stages"][name][0] - b["stages"][name][0]) <= 64, (name, a, b)


def test_breakdown_bad_input_and_no_tsc(boot):
    vm = boot()
    assert vm.cmd("latency 10 1000 breakdwn").replace("\r", "").startswith("usage: latency"), \
        "a misspelt breakdown is a usage error"
    assert vm.cmd("latency 10 1000 breakdown extra").replace("\r", "").startswith("usage: latency")
    # A 486 has no TSC to stamp with: one line, and the shell goes on.
    vm486 = boot(machine="isapc", cpu="486")
    out = vm486.cmd("latency 10 1000 breakdown").replace("\r", "")
    assert out.strip() == "error: breakdown needs a cycle counter (the TSC), and this CPU has none", out
    assert "up " in vm486.cmd("uptime")


@pytest.mark.parametrize("hz", [250, 1000])
def test_a_skip_ends_on_its_deadline(boot, hz):
    """Tickless, a 1 ms cyclic timer: some sleeps keep the tick (the next
    jiffy comes first) and some stop it (a skip to the timer).  Both must
    wake the waiter equally late.  A skip used to be programmed as a delta
    from the time its decision began, so it ended that decision's length
    past its deadline: every skip's sample 27 us later than the others
    under -icount (1 sample in 4 at HZ=250, every one at HZ=1000)."""
    vm = boot(f"hz={hz}", icount=4)
    out = vm.cmd("latency 500 1000", timeout=30).replace("\r", "")
    lat = parse.latency(out)
    assert not lat.p50_at_least and not lat.p99_at_least, out
    n, lo, p50, p99, hi = lat.n, lat.min, lat.p50, lat.p99, lat.max
    assert n == 500 and hi - lo <= 10 and p99 - p50 <= 8, out
