"""lullvm's parsers (tests/lullvm/parse.py) on outputs lull printed: two
run= boots under icount recorded in tests/meta/recorded/ (one CPU, and two
CPUs), each command's output cut out by lullvm's own RunLog.  Boots nothing.
A change of an output's format shows here first, by name."""
import os
import re

import pytest

from lullvm import parse
from lullvm.qemu import RunLog, run_line

HERE = os.path.join(os.path.dirname(__file__), "recorded")


def recorded(name):
    with open(os.path.join(HERE, name)) as f:
        return RunLog(f.read(), True)


@pytest.fixture(scope="module")
def up():
    return recorded("up-run.log")


@pytest.fixture(scope="module")
def smp2():
    return recorded("smp2-run.log")


def test_runlog_cuts_each_command(up):
    assert len(up.outs) == 9
    assert up.hz == 250
    assert up.out("hz 100") == "HZ=100 (tick every 10000 us; was HZ=250)\n"
    assert up.out("uptime").startswith("up 6.111109224 s")
    with pytest.raises(AssertionError, match="never ran"):
        up.out("uptime", 1)


def test_run_line_quotes_and_refuses_a_separator():
    assert run_line(["idle 2", "wakeups"]) == 'run="idle 2; wakeups"'
    with pytest.raises(ValueError):
        run_line(["echo a; b"])


def test_uptime(up, smp2):
    assert parse.uptime(up.out("uptime")) == (6.111109224, 1025, 100, 6111109224)
    assert parse.uptime(smp2.out("uptime")) == (0.068758593, 4294966796, 250, 68758593)
    assert [u.hz for u in parse.uptime_all(up.log)] == [100]


def test_idle_one_cpu(up):
    i = parse.idle(up.out("idle 1"))
    assert (i.span, i.wakeups, i.rate, i.mean_sleep_ms, i.max_sleep_ms, i.halted) == \
        (1.0, 1, 0.99, 1000.0, 1000.0, 99.99)
    assert i.cpus == {0: (1, 0.99, 1000.0, 1000.0, 99.99)}


def test_idle_per_cpu(smp2):
    i = parse.idle(smp2.out("idle 2"))
    assert (i.span, i.wakeups, i.max_sleep_ms) == (2.0, 2, 1999.9)
    assert sorted(i.cpus) == [0, 1]
    assert i.cpus[0].wakeups == 2 and i.cpus[0].max_sleep_ms == 1003.5
    assert i.cpus[1].wakeups == 0
    # The boot CPU's figures under the sum's span.
    assert parse.idle(parse.boot_cpu_idle(smp2.out("idle 2"))).max_sleep_ms == 1003.5


def test_wakeups(up, smp2):
    w = parse.wakeups(up.out("wakeups"))
    assert (w.span, w.total, w.halted, w.scope) == (4.043, 1495, 97, None)
    assert list(w.causes.items()) == [("tick", 798), ("hrtimer: timerload", 696), ("hrtimer: sleep", 1)]
    assert w.skips == {"timer": 0, "hrtimer": 714, "device max": 0, "clocksource wrap": 0, "watchdog": 0}
    assert w.given_up == 17
    w2 = parse.wakeups(smp2.out("wakeups"))
    assert w2.scope == "2 CPUs"
    assert w2.cpus[0] == (2, 0.99, 99, "timer: tsc-refine")
    assert w2.cpus[1] == (0, 0.0, 99, None)
    assert parse.wakeups(smp2.out("wakeups 0")).scope == "CPU 0"


def test_latency_and_breakdown(smp2):
    lat = parse.latency(smp2.out("latency 100 1000"))
    assert lat[:7] == (100, 1000, 22, 23.5, 22, 26, 26)
    assert lat.hist == [(16, 32, 100)] and lat.breakdown is None
    b = parse.latency(smp2.out("latency 20 1000 breakdown")).breakdown
    assert (b.wakeups, b.tsc_hz) == (20, 1000000007)
    assert b.stages["deadline to entry"] == (10171, None)
    assert b.stages["irq enter"] == (3491, 7055)
    assert b.totals["deadline to callback"] == (29034, None)
    assert b.totals["after the callback"] == (30832, 37947)


def test_latency_lower_bounds():
    lat = parse.latency("latency: n=5 period=1000us min=1 avg=9999.0 p50=>=20000 p99=>=20000 max=25000 (us)\n"
                        "  >=16384  us        5 ####\n")
    assert (lat.p50, lat.p50_at_least, lat.p99_at_least) == (20000, True, True)
    assert lat.hist == [(16384, None, 5)]


def test_timerload(up):
    t = parse.timerload(up.out("timerload 20 5 50 2"))
    assert (t.seed, t.timers, t.kind, t.min_ms, t.max_ms, t.klass, t.seconds, t.piggyback) == \
        (1, 20, "hr", 5, 50, "default", 2, True)
    assert (t.fired, t.wakeups, t.optimum, t.ratio, t.early, t.past_hard, t.worst_late_us) == \
        (2315, 1294, 1292, 1.0, 0, 0, 115)
    assert (t.by_timers, t.by_other, t.worst_irq_us, t.slack_bins) == (497, 797, 17, {})
    assert t.slack_used == "- (no window)" and t.slack_median_pct is None
    bg = parse.timerload(up.out("timerload 10 5 50 1 background seed=3"))
    assert bg.klass == "background" and bg.slack_used == "50% median" and bg.slack_median_pct == 50
    assert bg.slack_bins["90-100"] == 199 and sum(bg.slack_bins.values()) == 602


def test_trace(smp2):
    tr = parse.trace(smp2.out("trace 1"))
    assert (tr.mode, tr.device, tr.hz, tr.cpus, tr.events, tr.dropped, tr.full) == \
        ("tickless", "lapic", 250, 2, 3, 0, False)
    assert [r.event for r in tr.rows] == ["idle_enter", "timer_irq", "idle_exit"]
    assert tr.rows[0] == (2285781277, 0, "idle_enter", "hrtimer", 250, 999964208, "sleep")
    assert (tr.full_after_s, tr.full_of_s, tr.full_dropped) == (None, None, None)


def test_trace_that_overflowed(smp2):
    # The recorded trace with the line lull prints before the CSV when its
    # buffer filled (kernel/shell/cmd_trace.c).
    out = smp2.out("trace 1").replace("events=3 dropped=0", "events=3 dropped=3811")
    head, rest = out.split("\n", 1)
    tr = parse.trace(head + "\n# trace: buffer full after 2.730 s of 4 s; 3811 events dropped\n" + rest)
    assert (tr.dropped, tr.full, tr.full_after_s, tr.full_of_s, tr.full_dropped) == (3811, True, 2.73, 4, 3811)
    assert len(tr.rows) == tr.events == 3


def test_dyntick(smp2):
    d = parse.dyntick(smp2.out("dyntick"))
    assert d[:11] == (1, 1, 1, "tickless", "lapic", 17179, 250, 33, 780, 33, 250)
    assert d.rows[("tickless", 1)] == (3, 250, 3, 250) and d.rows[("dyntick", "all")] == (0, 0, 0, 0)
    assert len(d.rows) == 6
    # Periodic or dyntick running: the dyntick row of all CPUs.
    assert parse.dyntick(smp2.out("dyntick", 1))[3:8] == ("dyntick", "lapic", 17179, 250, 0)


def test_cpus(smp2):
    rows = parse.cpus(smp2.out("cpus"))
    assert rows[0] == (0, 0, "busy", "running, dyntick on lapic", 125, 29.5)
    assert rows[1].state == "idle" and rows[1].wakeups == 3


def test_switch_said(up, smp2):
    """The one line a switch says, against each kind of change."""
    S = parse.TickState
    boot = S("tickless", 250, "lapic", "tsc")
    said = parse.switch_said("hz 100", boot, boot._replace(hz=100))
    assert re.fullmatch(said, up.out("hz 100").strip())
    dyn = boot._replace(mode="dyntick")
    assert re.fullmatch(parse.switch_said("tick dyntick", boot, dyn), smp2.out("tick dyntick").strip())
    assert re.fullmatch(parse.switch_said("tick tickless", dyn, boot), smp2.out("tick tickless").strip())
    assert not re.fullmatch(parse.switch_said("tick tickless", boot, boot), smp2.out("tick tickless").strip())
    pit = dyn._replace(device="pit")
    line = "tick: dyntick on pit, HZ=250 (was tickless on lapic; pit: the device dyntick= asked for)"
    assert re.fullmatch(parse.switch_said("dyntick on", boot, pit), line)
    assert re.fullmatch(parse.switch_said("dyntick on", boot, pit, "the device dyntick= asked for"), line)
    assert not re.fullmatch(parse.switch_said("dyntick on", boot, pit, "the best-rated device"), line)
    assert re.fullmatch(parse.switch_said("tick dyntick", dyn, dyn), "tick: dyntick on lapic, HZ=250 (unchanged)")
    assert re.fullmatch(parse.switch_said("hz 250", boot, boot), "HZ=250 (tick every 4000 us; unchanged)")
    assert re.fullmatch(parse.switch_said("clockevent pit", dyn, pit), "clockevent: tick on pit (was lapic)")
    assert re.fullmatch(parse.switch_said("clocksource hpet", boot, boot._replace(clocksource="hpet")),
                        "clocksource: timekeeping on hpet (was tsc)")
    assert re.fullmatch(parse.switch_said("clocksource tsc", boot, boot),
                        "clocksource: timekeeping on tsc (unchanged)")
    with pytest.raises(ValueError):
        parse.switch_said("every 100", boot, boot)


@pytest.mark.parametrize("fn", [parse.idle, parse.wakeups, parse.latency, parse.timerload,
                                parse.trace, parse.dyntick, parse.cpus, parse.uptime])
def test_a_text_without_the_output_is_a_parse_error(fn):
    with pytest.raises(parse.ParseError, match="no "):
        fn("lull> help\nerror: nothing here\n")
