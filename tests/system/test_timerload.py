"""Timers with windows: `slack`, `timers` and `timerload` in every tick mode.

timerload arms periodic timers with windows and idles; it reports the
wakeups, the fewest wakeups that could have served the same windows (the
optimum), and every expiry that ran early or past its hard end.  Under
`-icount shift=4,sleep=off` a minute of guest time takes a fraction of a
second and the counts repeat exactly, so these runs are short on the host.

The bounds are loose on purpose: the targets (docs/timers.md, measured by
`make bench`) are 10 % slack within 1.05x of the optimum and 70 % fewer
wakeups than exact, 1 % slack 25 % fewer.  What is asserted exactly is
what must never happen: an expiry before its window opens, or after it
closes.
"""
import re

import pytest

from lullvm import parse

ICOUNT = 4
LOAD = "timerload 50 1000 5000 60"
MODES = ["tickless", "dyntick", "periodic"]


def timerload(vm, args):
    out = vm.cmd(f"{LOAD} {args}" if not args.startswith("timerload") else args, timeout=120)
    t = parse.timerload(out)
    return dict(out=out, fired=t.fired, wakeups=t.wakeups, optimum=t.optimum,
                timer_wakeups=t.by_timers,
                ratio=t.ratio, early=t.early, past_hard=t.past_hard, late=t.worst_late_us)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["hr", "wheel"])
def test_windows_hold_in_every_mode(boot, mode, kind):
    """No expiry early or past hard, whatever the class, mode or timer kind;
    and in the skipping modes slack buys the wakeups it should."""
    vm = boot(append=f"tick={mode}", icount=ICOUNT)
    wheel = " wheel" if kind == "wheel" else ""
    rows = {c: timerload(vm, c + wheel) for c in ["exact", "1", "10", "normal", "background", "deferrable"]}
    for c, r in rows.items():
        assert r["early"] == 0 and r["past_hard"] == 0, (c, r["out"])
        assert r["fired"] > 1000, (c, r["out"])           # 50 timers of 1..5 s for 60 s
    if mode == "periodic":
        # Every tick is a wakeup: HZ=250 for 60 s, whatever the slack.
        for c, r in rows.items():
            assert 14000 < r["wakeups"] < 16000, (c, r["out"])
        return
    # Tickless: the wakeups the timers caused (see below for why not all of
    # them).  Dyntick: all of them, as many are ticks (a skip of two ticks or
    # fewer is not worth it, the 2005 rule, and the tick runs the timers).
    key = "timer_wakeups" if mode == "tickless" else "wakeups"
    exact, one, ten = rows["exact"], rows["1"], rows["10"]
    if mode == "tickless":
        assert exact[key] < 1.15 * exact["optimum"], exact["out"]
    assert ten[key] <= 1.10 * ten["optimum"], ten["out"]
    assert ten[key] < 0.4 * exact[key], (ten["out"], exact["out"])
    assert one[key] < 0.85 * exact[key], (one["out"], exact["out"])
    # The wider the windows, the fewer the wakeups: deferrable's are up to
    # 1 s, 10 % of 1..5 s is 100..500 ms, background's 100 ms, 1 % 10..50 ms,
    # normal's 1 ms.
    # (Dyntick wakes on tick boundaries: 1 ms windows gain it nothing.)
    order = ["deferrable", "10", "background", "1"] + (["normal", "exact"] if mode == "tickless" else [])
    # Counted in wakeups the timers caused: the others vary from run to
    # run even under icount when the host is busy (a CI run with a kernel
    # being unpacked alongside saw 344 instead of about 20 in one row;
    # docs/timers.md), and normal's 1 ms windows save only about 2 % over
    # exact.  Within 5 %.
    counts = [rows[c][key] for c in order]
    assert all(a <= 1.05 * b for a, b in zip(counts, counts[1:])), dict(zip(order, counts))


def test_same_seed_same_load(boot):
    """The periods come from the seed: the same seed fires the same expiries
    and has the same optimum; another seed does not."""
    vm = boot(icount=ICOUNT)
    a = timerload(vm, "10 seed=7")
    b = timerload(vm, "10 seed=7")
    c = timerload(vm, "10 seed=8")
    assert (a["fired"], a["optimum"]) == (b["fired"], b["optimum"]), (a["out"], b["out"])
    assert (a["fired"], a["optimum"]) != (c["fired"], c["optimum"]), (a["out"], c["out"])
    assert "seed 7," in a["out"] and "seed 8," in c["out"]


def test_timerload_on_another_cpu(boot):
    """The load runs on the CPU named, and is counted there."""
    vm = boot(icount=ICOUNT, extra=["-smp", "2"])
    for wheel in ["", " wheel"]:
        r = timerload(vm, f"10 cpu=1{wheel}")
        assert "on CPU 1," in r["out"], r["out"]
        assert r["early"] == 0 and r["past_hard"] == 0, r["out"]
        assert r["timer_wakeups"] <= 1.10 * r["optimum"], r["out"]


def test_timerload_on_another_cpu_back_to_back(run):
    """Twelve short runs on CPU 1, each right after the last, hrtimers and
    wheel timers in turn: their callbacks re-arm themselves, so each clean-up
    must wait for a callback still running on CPU 1 (hrtimer_cancel,
    timer_del_sync) or the next run's timer_init finds it running and
    panics, or a survivor keeps writing results.  Every run reports, none
    has an expiry early or past its window, and the shell is still there.
    (Under icount CPU 1 runs only while CPU 0 waits, so this passed before
    the sync cancel too; tests/unit/test_timer_smp.c is what failed.)"""
    cmds = [f"timerload 10 1 3 1 {'wheel ' if i % 2 else ''}cpu=1 seed={i + 1}" for i in range(12)]
    r = run(cmds + ["version"], extra=["-smp", "2"], timeout=120)
    assert "panic" not in r.log, r.tail()
    for i, c in enumerate(cmds):
        t = parse.timerload(r.out(c))
        assert t.fired > 0 and t.early == 0 and t.past_hard == 0, (i, r.out(c))
    assert r.out("version").startswith("lull"), r.tail()


def test_slack_default_gives_every_timer_a_window(boot):
    """`slack 10` widens the windows of timers that name no class; `timers`
    shows the window and the class; `slack default` goes back."""
    vm = boot(icount=ICOUNT)
    assert re.search(r"slack: default exact \(at boot exact\), piggyback on", vm.cmd("slack"))
    exact = timerload(vm, "")
    assert "class default" in exact["out"]
    assert "slack: default 10%" in vm.cmd("slack 10")
    wide = timerload(vm, "")
    assert wide["timer_wakeups"] < 0.4 * exact["timer_wakeups"], (wide["out"], exact["out"])
    # A wheel timer armed 1000 ms ahead at HZ=250: 250 ticks, 10 % of it
    # (less once it re-arms itself from a callback that ran inside its
    # window: the period counts from its last expiry, the slack from now).
    vm.cmd("every 1000")
    out = vm.cmd("timers")
    m = re.search(r"wheel .*window \+(\d+) ticks  class default  every", out)
    assert m and 20 <= int(m.group(1)) <= 25, out
    vm.cmd("every off")
    assert "slack: default exact" in vm.cmd("slack default")
    out = vm.cmd("slack")
    assert "default exact" in out, out


def test_slack_boot_option(boot):
    vm = boot(append="slack=25", icount=ICOUNT)
    assert "slack: default 25% (at boot 25%)" in vm.cmd("slack")
    vm2 = boot(append="slack=250")
    assert "slack" in vm2.log_text().split("lull>")[0]       # the warning names the option
    assert "slack: default exact" in vm2.cmd("slack")


def test_piggyback_off_is_reported(boot):
    vm = boot(append="piggyback=off", icount=ICOUNT)
    assert "piggyback off" in vm.cmd("slack")
    r = timerload(vm, "10")
    assert "piggyback off" in r["out"] and r["early"] == 0 and r["past_hard"] == 0, r["out"]
    assert "slack: piggyback on" in vm.cmd("slack piggyback on")


BAD_INPUT = [
    "slack 101", "slack -1", "slack fast", "slack 10 20", "slack piggyback maybe",
    "timerload", "timerload 0 1000 5000 10", "timerload 101 1000 5000 10",
    "timerload 50 5000 1000 10", "timerload 50 1000 5000 0", "timerload 50 1000 5000 10 sloppy",
    "timerload 50 1000 5000 10 cpu=9", "timerload 50 1000 5000 10 seed=0", "timerload 50 1000 5000 10 101",
]


def test_bad_input_says_usage(vm):
    """Each line in one boot: a refusal leaves the shell as it was."""
    for line in BAD_INPUT:
        out = vm.cmd(line)
        assert out.startswith("usage:") or out.startswith("error:"), (line, out)
        assert "jiffies" in vm.cmd("uptime"), line


def test_too_many_expiries_is_an_error(vm):
    out = vm.cmd("timerload 100 1 2 3600")
    assert out.startswith("error: timerload: up to"), out
