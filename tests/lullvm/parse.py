"""lull's shell outputs as numbers: one parser per command that tests,
graders, the bench and the soak read.  Each takes the command's output (or
a whole log: it finds the first match) and returns plain named tuples; a
text that does not hold the command's output raises ParseError with it.

The formats are the kernel's (kernel/shell/cmd_*.c); the recorded outputs
in tests/meta/test_lullvm_parse.py are examples of each.
"""
import re
from collections import namedtuple


class ParseError(AssertionError):
    """The text does not hold what the parser reads."""


def _search(regex, text, what):
    m = regex.search(text)
    if not m:
        raise ParseError(f"no {what} line in:\n{text[-1500:]}")
    return m


# ---------------------------------------------------------------- uptime
# up 6.111109224 s, jiffies 1025  HZ=100
Uptime = namedtuple("Uptime", "seconds jiffies hz ns")    # ns: the same time, exact
UPTIME_RE = re.compile(r"up (\d+)\.(\d{9}) s, jiffies (\d+)\s+HZ=(\d+)")


def uptime(text):
    m = _search(UPTIME_RE, text, "uptime")
    return _uptime(*m.groups())


def _uptime(s, frac, jiffies, hz):
    return Uptime(int(s) + int(frac) / 1e9, int(jiffies), int(hz), int(s) * 10**9 + int(frac))


def uptime_all(text):
    """Every uptime reading in a log, in order."""
    return [_uptime(*g) for g in UPTIME_RE.findall(text)]


# ---------------------------------------------------------------- idle
# idle 2.000 s: 2 wakeups (0.99/s), mean sleep 1333.3 ms, max sleep 1999.9 ms, halted 99.99%
# cpu 0: 2 wakeups (0.99/s), mean sleep 1000.0 ms, max sleep 1003.5 ms, halted 99.99%
Idle = namedtuple("Idle", "span wakeups rate mean_sleep_ms max_sleep_ms halted cpus")
IdleCpu = namedtuple("IdleCpu", "wakeups rate mean_sleep_ms max_sleep_ms halted")
_IDLE_FIGURES = (r"(\d+) wakeups \(([\d.]+)/s\), mean sleep ([\d.]+) ms, "
                 r"max sleep ([\d.]+) ms, halted ([\d.]+)%")
IDLE_RE = re.compile(r"^idle ([\d.]+) s: " + _IDLE_FIGURES, re.M)
IDLE_CPU_RE = re.compile(r"^cpu (\d+): " + _IDLE_FIGURES, re.M)


def _idle_figures(g):
    return int(g[0]), float(g[1]), float(g[2]), float(g[3]), float(g[4])


def idle(text):
    """`idle SECONDS`: the sum over every CPU, and each CPU's line (on one
    CPU, cpus holds CPU 0 with the sum's figures)."""
    m = _search(IDLE_RE, text, "idle")
    rest = text[m.end():]
    nxt = IDLE_RE.search(rest)
    rest = rest[:nxt.start()] if nxt else rest
    cpus = {int(c.group(1)): IdleCpu(*_idle_figures(c.groups()[1:])) for c in IDLE_CPU_RE.finditer(rest)}
    figures = _idle_figures(m.groups()[1:])
    if not cpus:
        cpus = {0: IdleCpu(*figures)}
    return Idle(float(m.group(1)), *figures, cpus)


def boot_cpu_idle(out):
    """`idle`'s output with its first line for the boot CPU alone: on one
    CPU as it is; on several, the first line's span with the figures of
    the `cpu 0:` line (the first line sums every CPU's)."""
    m = re.search(r"^cpu 0: (.*?)\r?$", out, re.M)
    if not m:
        return out
    return re.sub(r"^(idle [\d.]+ s: ).*?(\r?)$", lambda h: h.group(1) + m.group(1) + h.group(2),
                  out, count=1, flags=re.M)


# ---------------------------------------------------------------- wakeups
# wakeups in the last 2.003 s: 2 (0.99/s), halted 99% (2 CPUs)
#    count   rate/s  cause
#        1  0.49	timer: tsc-refine
# skips by limit: timer 1, hrtimer 1, device max 1, clocksource wrap 0, watchdog 0; given up before the halt 0
# cpu 0: 2 (0.99/s), halted 99%, most often timer: tsc-refine
Wakeups = namedtuple("Wakeups", "span total rate halted scope causes skips given_up cpus")
WakeupsCpu = namedtuple("WakeupsCpu", "total rate halted most_often")
WAKEUPS_RE = re.compile(r"^wakeups in the last ([\d.]+) s: (\d+) \(([\d.]+)/s\), halted (\d+)%(?: \((.+)\))?\s*$",
                        re.M)
CAUSE_RE = re.compile(r"^\s*(\d+)\s+([\d.]+)\t(.+?)\s*$", re.M)
SKIPS_RE = re.compile(r"^skips by limit: (.*); given up before the halt (\d+)\s*$", re.M)
WAKEUPS_CPU_RE = re.compile(r"^cpu (\d+): (\d+) \(([\d.]+)/s\), halted (\d+)%(?:, most often (.+?))?\s*$", re.M)


def wakeups(text):
    """`wakeups [CPU]`: causes as {cause: count} in the printed order,
    skips as {limit: count}, each CPU's line (several CPUs, no CPU named)."""
    m = _search(WAKEUPS_RE, text, "wakeups")
    rest = text[m.end():]
    end = re.search(r"^lull> ", rest, re.M)
    rest = rest[:end.start()] if end else rest
    causes = {c.group(3): int(c.group(1)) for c in CAUSE_RE.finditer(rest)}
    skips, given_up = {}, None
    s = SKIPS_RE.search(rest)
    if s:
        for part in s.group(1).split(", "):
            name, _, n = part.rpartition(" ")
            skips[name] = int(n)
        given_up = int(s.group(2))
    cpus = {int(c.group(1)): WakeupsCpu(int(c.group(2)), float(c.group(3)), int(c.group(4)), c.group(5))
            for c in WAKEUPS_CPU_RE.finditer(rest)}
    return Wakeups(float(m.group(1)), int(m.group(2)), float(m.group(3)), int(m.group(4)),
                   m.group(5), causes, skips, given_up, cpus)


# ---------------------------------------------------------------- latency
# latency: n=100 period=1000us min=22 avg=23.5 p50=22 p99=26 max=26 (us)
#      16-32    us      100 ########################################
# p50/p99 past the 20 ms histogram print as ">=20000": a lower bound (p50_at_least).
Latency = namedtuple("Latency", "n period_us min avg p50 p99 max p50_at_least p99_at_least hist breakdown")
LATENCY_RE = re.compile(r"^latency: n=(\d+) period=(\d+)us min=(\d+) avg=([\d.]+) "
                        r"p50=(>=)?(\d+) p99=(>=)?(\d+) max=(\d+)", re.M)
# A log2 bin "LO-HI us COUNT", or the last one, open-ended: ">=LO us COUNT" (hi None).
HIST_RE = re.compile(r"^\s*(?:(\d+)-(\d+)|>=(\d+))\s+us\s+(\d+)", re.M)


def latency(text):
    m = _search(LATENCY_RE, text, "latency")
    rest = text[m.end():]
    end = re.search(r"^lull> |^latency: ", rest, re.M)
    rest = rest[:end.start()] if end else rest
    hist = [(int(lo or open_lo), int(hi) if hi else None, int(n))
            for lo, hi, open_lo, n in HIST_RE.findall(rest)]
    bd = breakdown(rest) if BREAKDOWN_RE.search(rest) else None
    return Latency(int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)),
                   int(m.group(6)), int(m.group(8)), int(m.group(9)),
                   bool(m.group(5)), bool(m.group(7)), hist, bd)


# breakdown: 20 wakeups, ns per stage at the TSC's 1000000007 Hz:
#   stage                     average  slowest
#   deadline to entry           10171
#   stack guard                  1871     1871
#   = entry to the callback     18863    22427
#   = deadline to callback      29034
Breakdown = namedtuple("Breakdown", "wakeups tsc_hz stages totals")
BREAKDOWN_RE = re.compile(r"^breakdown: (\d+) wakeups, ns per stage at the TSC's (\d+) Hz:\s*$", re.M)
BREAKDOWN_ROW_RE = re.compile(r"^  (=?) ?([a-z][a-z ]*?) +(-?\d+)(?: +(-?\d+))?\s*$", re.M)


def breakdown(text):
    """`latency ... breakdown`: stages and totals as {name: (average,
    slowest or None)}, in ns."""
    m = _search(BREAKDOWN_RE, text, "breakdown")
    stages, totals = {}, {}
    for total, name, avg, slowest in BREAKDOWN_ROW_RE.findall(text[m.end():]):
        (totals if total else stages)[name] = (int(avg), int(slowest) if slowest else None)
    return Breakdown(int(m.group(1)), int(m.group(2)), stages, totals)


# ---------------------------------------------------------------- timerload
# timerload: seed 1, 20 hr timers on CPU 0, periods 5..50 ms, class default, 2 s, piggyback on
# timerload: 20 timers, 2315 fired, 1294 wakeups (646.87/s), optimum 1292 (ratio 1.00), early 0,
#            past hard 0, worst late 115 us, slack used - (no window)
# timerload: wakeups by cause: timers 497, other 797; worst interrupt latency 17 us
# timerload: slack used (% of window: expiries) 0-9:67 10-19:112 ...
# slack_median_pct: the median of "slack used ... 50% median"; None for "- (no window)".
Timerload = namedtuple("Timerload", "seed timers kind min_ms max_ms klass seconds piggyback fired wakeups rate "
                                    "optimum ratio early past_hard worst_late_us slack_used "
                                    "by_timers by_other worst_irq_us slack_bins slack_median_pct")
TIMERLOAD_HEAD_RE = re.compile(r"^timerload: seed (\d+), (\d+) (?:(hr|wheel) )?timers(?: on CPU \d+)?, "
                               r"periods (\d+)\.\.(\d+) ms, class (\S+), (\d+) s, piggyback (on|off)", re.M)
TIMERLOAD_RESULT_RE = re.compile(r"^timerload: (\d+) timers, (\d+) fired, (\d+) wakeups \(([\d.]+)/s\), "
                                 r"optimum (\d+) \(ratio ([\d.]+)\), early (\d+), past hard (\d+), "
                                 r"worst late (\d+) us, slack used (.*?)\s*$", re.M)
TIMERLOAD_CAUSES_RE = re.compile(r"^timerload: wakeups by cause: timers (\d+), other (\d+)"
                                 r"(?:; worst interrupt latency (\d+) us)?", re.M)
TIMERLOAD_SLACK_RE = re.compile(r"^timerload: slack used \(% of window: expiries\) (.*?)\s*$", re.M)


def timerload(text):
    h = _search(TIMERLOAD_HEAD_RE, text, "timerload header")
    r = _search(TIMERLOAD_RESULT_RE, text, "timerload result")
    c = _search(TIMERLOAD_CAUSES_RE, text, "timerload causes")
    s = TIMERLOAD_SLACK_RE.search(text)
    bins = {}
    if s:
        for part in s.group(1).split():
            rng, n = part.split(":")
            bins[rng] = int(n)
    return Timerload(int(h.group(1)), int(h.group(2)), h.group(3), int(h.group(4)), int(h.group(5)),
                     h.group(6), int(h.group(7)), h.group(8) == "on",
                     int(r.group(2)), int(r.group(3)), float(r.group(4)), int(r.group(5)),
                     float(r.group(6)), int(r.group(7)), int(r.group(8)), int(r.group(9)), r.group(10),
                     int(c.group(1)), int(c.group(2)), int(c.group(3)) if c.group(3) else None, bins,
                     _slack_median(r.group(10)))


def _slack_median(used):
    m = re.fullmatch(r"(\d+)% median", used)
    if m:
        return int(m.group(1))
    if used == "- (no window)":
        return None
    raise ParseError(f"timerload: slack used {used!r}: neither a median nor no window")


# ---------------------------------------------------------------- trace
# # trace: mode=tickless device=lapic hz=250 cpus=2 events=3 dropped=0
# t_ns,cpu,event,cause,skip_ticks,sleep_ns,name
# 2285781277,0,idle_enter,hrtimer,250,999964208,sleep
# A trace that overflowed its buffer says so after the header:
# # trace: buffer full after 2.730 s of 4 s; 3811 events dropped
# (full_after_s, full_of_s, full_dropped: that line's figures, None without it).
Trace = namedtuple("Trace", "mode device hz cpus events dropped full rows full_after_s full_of_s full_dropped")
TraceRow = namedtuple("TraceRow", "t_ns cpu event cause skip_ticks sleep_ns name")
TRACE_HEAD_RE = re.compile(r"^# trace: mode=(\S+) device=(\S+) hz=(\d+) cpus=(\d+) events=(\d+) dropped=(\d+)\s*$",
                           re.M)
TRACE_FULL_RE = re.compile(r"^# trace: buffer full after .*$", re.M)
TRACE_FULL_FIGURES_RE = re.compile(r"^# trace: buffer full after (\d+\.\d{3}) s of (\d+) s; (\d+) events dropped\s*$",
                                   re.M)
TRACE_ROW_RE = re.compile(r"^(\d+),(\d+),(\w+),([^,]*),(\d+),(\d+),(.*?)\s*$", re.M)


def trace(text):
    h = _search(TRACE_HEAD_RE, text, "trace header")
    rows = [TraceRow(int(t), int(c), e, cause, int(k), int(s), n)
            for t, c, e, cause, k, s, n in TRACE_ROW_RE.findall(text[h.end():])]
    f = TRACE_FULL_FIGURES_RE.search(text)
    return Trace(h.group(1), h.group(2), int(h.group(3)), int(h.group(4)), int(h.group(5)),
                 int(h.group(6)), bool(TRACE_FULL_RE.search(text)), rows,
                 float(f.group(1)) if f else None, int(f.group(2)) if f else None, int(f.group(3)) if f else None)


# ---------------------------------------------------------------- dyntick
# suitable:	1
# enabled:	1
# using APIC:	1
# mode: tickless, device: lapic, max skip: 17179 ticks at HZ=250
# skips since 0.067 s of uptime (dyntick reset starts them and the wakeups again):
# mode      cpu   skips  ticks skipped  catch-ups  longest skip
# dyntick   all       2            500          2     250 ticks
# dyntick     0       1            250          1     250 ticks      (one per CPU on several)
# tickless  all       0              0          0       0 ticks
Dyntick = namedtuple("Dyntick", "suitable enabled using_apic mode device max_skip hz "
                                "skips ticks_skipped catch_ups longest_skip rows")
DYNTICK_STATE_RE = re.compile(r"^suitable:\t(\d)\s*\nenabled:\t(\d)\s*\nusing APIC:\t(\d)", re.M)
DYNTICK_MODE_RE = re.compile(r"^mode: (\S+), device: (\S+), max skip: (\d+) ticks at HZ=(\d+)", re.M)
DYNTICK_ROW_RE = re.compile(r"^(dyntick|tickless)\s+(all|\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+) ticks\s*$", re.M)


def dyntick(text):
    """`dyntick`: the 2005 patch's three status lines, lull's mode line, and
    the skip counters: `rows` is {(mode, "all" or a CPU number): (skips,
    ticks skipped, catch-ups, longest)}, and the skips fields are the row
    of all CPUs in the mode running (dyntick's when periodic)."""
    text = text.replace("\r", "")
    s = _search(DYNTICK_STATE_RE, text, "dyntick status")
    m = _search(DYNTICK_MODE_RE, text, "dyntick mode")
    rows = {(r[0], r[1] if r[1] == "all" else int(r[1])): tuple(int(x) for x in r[2:])
            for r in DYNTICK_ROW_RE.findall(text)}
    mode = m.group(1) if m.group(1) in ("dyntick", "tickless") else "dyntick"
    assert (mode, "all") in rows, f"no dyntick skip counters in:\n{text}"
    return Dyntick(*(int(x) for x in s.groups()), m.group(1), m.group(2), int(m.group(3)), int(m.group(4)),
                   *rows[(mode, "all")], rows)


# ---------------------------------------------------------------- cpus
# cpu  apic  state  tick                          wakeups since reset
#   0     0  busy   running, dyntick on lapic     125 (29.5/s)
Cpu = namedtuple("Cpu", "index apic state tick wakeups rate")
CPUS_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(idle|busy|off)\s+(.+?)\s+(\d+) \(([\d.]+)/s\)\s*$", re.M)


def cpus(text):
    rows = [Cpu(int(i), int(a), s, t, int(w), float(r)) for i, a, s, t, w, r in CPUS_RE.findall(text)]
    if not rows:
        raise ParseError(f"no cpus rows in:\n{text[-1500:]}")
    return rows


# ---------------------------------------------------------------- switches
# A command that changes the tick or the clocks says so in one line, read
# back after the change, with what it was or "unchanged"
# (kernel/shell/cmd_tick.c, cmd_time.c):
# tick: dyntick on pit, HZ=250 (was tickless on lapic; pit: the device dyntick= asked for)
# tick: periodic on lapic, HZ=250 (was tickless)
# HZ=1000 (tick every 1000 us; was HZ=250)
# clockevent: tick on pit (was lapic)
# clocksource: timekeeping on hpet (unchanged)
TickState = namedtuple("TickState", "mode hz device clocksource")


def switch_said(cmd, before, after, why=None):
    """The line `cmd` (tick, dyntick on|off, hz, clockevent, clocksource)
    says when it takes the tick and the clocks from `before` to `after`
    (TickStates), as a regex to fullmatch.  `why` is the reason the rule
    gives when the tick moves to another device (any, if None)."""
    word = cmd.split()[0]
    if word in ("tick", "dyntick"):
        head = f"tick: {after.mode} on {after.device}, HZ={after.hz} "
        if after.device != before.device:
            tail = (rf"\(was {before.mode} on {before.device}; {re.escape(after.device)}: "
                    rf"{re.escape(why) if why else '.+'}\)")
        elif after.mode != before.mode:
            tail = rf"\(was {before.mode}\)"
        else:
            tail = r"\(unchanged\)"
        return re.escape(head) + tail
    if word == "hz":
        was = "unchanged" if after.hz == before.hz else f"was HZ={before.hz}"
        return re.escape(f"HZ={after.hz} (tick every {1_000_000 // after.hz} us; {was})")
    if word in ("clockevent", "clocksource"):
        what, old, new = (("tick", before.device, after.device) if word == "clockevent" else
                          ("timekeeping", before.clocksource, after.clocksource))
        was = "unchanged" if old == new else f"was {old}"
        return re.escape(f"{word}: {what} on {new} ({was})")
    raise ValueError(f"{cmd!r} changes neither the tick nor a clock")
