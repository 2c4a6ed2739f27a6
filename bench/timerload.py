"""The timerload rows of make bench: what a set of armed timers costs with
each slack class, against the fewest wakeups that could serve them.

Every row runs the same workload in lull's shell (kernel/shell/cmd_timerload.c):

    timerload 50 1000 5000 SECONDS CLASS seed=1

50 periodic hrtimers, periods 1..5 s, each with the window its class gives
(include/time/slack.h).  Each class row runs twice, in two boots:

  icount      under -icount shift=4,align=off,sleep=off the guest's clock
              counts its own instructions: the same seed gives the same
              wakeups every run, and 60 guest seconds take well under one
              host second.  The wakeup columns and the targets come from here.
  real time   the host CPU over the window (ms of QEMU CPU per second, all
              threads, as the idle rows measure it: guest.cpu_window), which
              only real time has; its wakeups and checks are kept as well.

The piggyback rows run in real time only: while timerload runs, the host
sends one NUL byte every half second (the line editor ignores NUL; while a
command runs it waits in the console's buffer), two serial interrupts a
second, once with piggybacking on and once after `slack piggyback off`.
Their timer-caused wakeups ("wakeups by cause: timers T") are compared.
"""
import re

import guest
from lullvm import parse  # noqa: E402  (guest put tests/ on sys.path)

WORKLOAD = "50 1000 5000"       # N MIN_MS MAX_MS
SEED = 1
ICOUNT_SHIFT = 4
ICOUNT_S = 60                   # the icount window, quick or not: it costs no host time
# Under icount the counts repeat for a given start, but where in guest time
# a run starts is the host's doing (sleep=off runs the clock on while the
# shell waits for our typing), and a few wakeups move with it: three runs
# in one boot, the median's run reported, all three kept.
ICOUNT_REPS = 3
REALTIME_S, QUICK_REALTIME_S = 60, 10
APPEND = "tick=tickless clockevent=lapic"   # as the tickless-lapic row; `dyntick` checks it
EXPECT_TICK = "mode: tickless, device: lapic"
SERIAL_INTERVAL_S = 0.5         # two bytes, so two serial interrupts, a second
SERIAL_BYTE = b"\x00"           # "nothing" in kernel/shell/lineedit.c's table

# Targets: exact is about the workload's own rate (50 timers of 1..5 s:
# 50 x ln(5)/4 = 20.1/s on average over the period draw; the target says 21).
EXACT_TARGET, EXACT_TOLERANCE = 21.0, 0.10
RATIO_10PCT_MAX, FEWER_10PCT, FEWER_1PCT, FEWER_PIGGYBACK = 1.05, 0.70, 0.25, 0.15


class Row:
    """One timerload row: the class word typed, its slack in percent (the
    picture's x axis; None for the named classes) and, for the piggyback
    rows, whether piggybacking is on while the host sends serial bytes."""

    def __init__(self, name, cls, pct=None, serial=False, piggyback=True, quick=False):
        self.name, self.cls, self.pct = name, cls, pct
        self.serial, self.piggyback = serial, piggyback
        self.quick = quick          # real-time row of a QUICK run too

    def what(self):
        c = "exact" if self.cls == "exact" else f"{self.cls}%" if self.pct is not None else self.cls
        if self.serial:
            return f"{c}, 2 serial bytes/s, piggyback {'on' if self.piggyback else 'off'}"
        return c


ROWS = [
    Row("timerload-exact", "exact", pct=0, quick=True),
    Row("timerload-1pct", "1", pct=1),
    Row("timerload-5pct", "5", pct=5),
    Row("timerload-10pct", "10", pct=10, quick=True),
    Row("timerload-25pct", "25", pct=25),
    Row("timerload-normal", "normal"),
    Row("timerload-background", "background"),
    Row("timerload-deferrable", "deferrable"),
    Row("timerload-10pct-serial", "10", pct=10, serial=True, quick=True),
    Row("timerload-10pct-serial-nopiggyback", "10", pct=10, serial=True, piggyback=False, quick=True),
    Row("timerload-1pct-serial", "1", pct=1, serial=True),
    Row("timerload-1pct-serial-nopiggyback", "1", pct=1, serial=True, piggyback=False),
]
NAMES = [r.name for r in ROWS]

UART_RE = re.compile(r"^\s*0x[0-9a-f]+\s+\d+\s+uart\s+(\d+)", re.M)


def command(row, seconds):
    return f"timerload {WORKLOAD} {seconds} {row.cls} seed={SEED}"


def read_run(out, row, seconds, piggyback):
    """timerload's three lines as numbers (lullvm.parse.timerload); raises
    if it did not run what was asked."""
    try:
        t = None if "error:" in out else parse.timerload(out)
    except parse.ParseError:
        t = None
    if t is None:
        raise RuntimeError(f"timerload: unexpected output {out.strip()!r}"[:300])
    want_cls = row.cls + "%" if row.pct is not None and row.cls != "exact" else row.cls
    got = (t.seed, t.klass, t.seconds, "on" if t.piggyback else "off")
    if got != (SEED, want_cls, seconds, "on" if piggyback else "off"):
        raise RuntimeError(f"timerload ran {got}, not {(SEED, want_cls, seconds, piggyback)}")
    w, opt = t.wakeups, t.optimum
    return dict(seconds=seconds, fired=t.fired, wakeups=w, wakeups_per_s=t.rate,
                optimum=opt, optimum_per_s=opt / seconds,
                ratio=w / opt if opt else None, early=t.early, past_hard=t.past_hard,
                worst_late_us=t.worst_late_us, slack_used_median_pct=t.slack_median_pct,
                timer_wakeups=t.by_timers, other_wakeups=t.by_other)


def uart_irqs(g):
    m = UART_RE.search(g.cmd("irqs"))
    return int(m.group(1)) if m else None


def boot(env, tag, icount=None):
    g = guest.Guest("qemu-system-i386", "tcg", kernel=env.elf, append=APPEND, cpu=env.cpu, icount=icount,
                    log_path=env.log_path(tag))
    g.wait_prompt()
    tick = g.cmd("dyntick")
    if EXPECT_TICK not in tick:
        g.close()
        raise RuntimeError(f"asked for '{EXPECT_TICK}', `dyntick` said {tick.strip()[:100]!r}")
    guest.wait_boot_timers(g)
    return g


def run_icount(g, row):
    runs = [read_run(g.cmd(command(row, ICOUNT_S), timeout=120), row, ICOUNT_S, piggyback=True)
            for _ in range(ICOUNT_REPS)]
    r = sorted(runs, key=lambda x: x["wakeups"])[len(runs) // 2]
    return dict(r, reps_wakeups=[x["wakeups"] for x in runs],
                **{k: max(x[k] for x in runs) for k in ("early", "past_hard", "worst_late_us")})


def run_realtime(g, row, seconds):
    """One real-time run: host CPU over the window, the bytes sent if a
    serial row, and the uart's interrupt count over the command (the
    typing of the command line and of `irqs` included: the guest may take
    several typed bytes in one interrupt, so the count less the bytes
    typed is a lower bound on the interrupts the sent bytes made)."""
    g.cmd(f"slack piggyback {'on' if row.piggyback else 'off'}")
    c0 = uart_irqs(g)
    line = command(row, seconds)
    guest.start_cmd(g, line)
    pulse = (SERIAL_INTERVAL_S, lambda: g.vm.send_bytes(SERIAL_BYTE)) if row.serial else None
    r = guest.cpu_window(g, seconds, pulse)
    g.vm.child.expect_exact(g.prompt, timeout=seconds + 60)
    out = g.vm.child.before.replace("\r\n", "\n")
    c1 = uart_irqs(g)
    r.update(read_run(out, row, seconds, row.piggyback))
    r.update(serial_bytes_sent=r.pop("pulses") if row.serial else 0,
             uart_irqs=c1 - c0 if None not in (c0, c1) else None,
             typed_bytes=len(line) + 1 + len("irqs\r"))
    g.cmd("slack piggyback on")
    return r


class Env:
    """What a run needs from bench.py: the kernel, the guest CPU model,
    where the serial logs go (log_path(tag)), whether it is a quick run
    (fewer real-time rows), the real-time window, and progress(detail,
    fraction done)."""

    def __init__(self, elf, cpu, log_path, quick, realtime_s, progress):
        self.elf, self.cpu, self.log_path = elf, cpu, log_path
        self.quick, self.realtime_s, self.progress = quick, realtime_s, progress


def new_row(row, env):
    return dict(config=row.name, what=row.what(), cls=row.cls, slack_pct=row.pct, serial=row.serial,
                piggyback=row.piggyback, accel="tcg", cpu_model=env.cpu, status="ok", icount=None,
                realtime=None)


def realtime_rows(names, quick):
    return [r for r in ROWS if r.name in names and (r.quick or not quick)]


def run(env, names):
    """The rows named, as dicts.  The class rows share one icount boot; the
    real-time rows (in a quick run only those marked quick), one real-time
    boot."""
    rows = [r for r in ROWS if r.name in names]
    realtime = realtime_rows(names, env.quick)
    out = {r.name: new_row(r, env) for r in rows}
    steps = [r for r in rows if not r.serial]
    env.progress(f"icount: {len(steps)} rows of {ICOUNT_S} guest s", 0.0)
    try:
        g = boot(env, "icount", icount=ICOUNT_SHIFT) if steps else None
        try:
            for r in steps:
                try:
                    out[r.name]["icount"] = run_icount(g, r)
                except Exception as e:
                    out[r.name]["status"] = failed(e)
        finally:
            if g:
                g.close()
        g = boot(env, "realtime") if realtime else None
        try:
            for i, r in enumerate(realtime):
                env.progress(f"real time {i + 1}/{len(realtime)}: {r.name}, {env.realtime_s} s",
                             i / len(realtime))
                try:
                    out[r.name]["realtime"] = run_realtime(g, r, env.realtime_s)
                except Exception as e:
                    out[r.name]["status"] = failed(e)
                    if not g.vm.alive():
                        break
        finally:
            if g:
                g.close()
    except Exception as e:      # a boot that failed fails every row not yet measured
        for d in out.values():
            if d["status"] == "ok" and not d["icount"] and not d["realtime"]:
                d["status"] = failed(e)
    return [out[r.name] for r in rows]


def failed(e):
    return f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]


# ------------------------------------------------------------ the report

def _get(d, run, key):
    return (d.get(run) or {}).get(key)


def _n(v, spec="d"):
    return "—" if v is None else format(v, spec)


def _cpu(d):
    c = _get(d, "realtime", "cpu_ms_per_s")
    return "—" if c is None else f"{c:.2f}"


CLASS_TABLE = [     # (header, cell): the class rows, wakeups from icount
    ("row", lambda d: d["config"]),
    ("class", lambda d: d["what"]),
    ("wakeups/s", lambda d: _n(_get(d, "icount", "wakeups_per_s"), ".2f")),
    (f"wakeups in {ICOUNT_REPS} runs", lambda d: "—" if not d.get("icount") else
     " / ".join(str(w) for w in d["icount"]["reps_wakeups"])),
    ("optimum", lambda d: _n(_get(d, "icount", "optimum"))),
    ("ratio", lambda d: _n(_get(d, "icount", "ratio"), ".3f")),
    ("early", lambda d: _n(_get(d, "icount", "early"))),
    ("past hard", lambda d: _n(_get(d, "icount", "past_hard"))),
    ("worst late µs", lambda d: _n(_get(d, "icount", "worst_late_us"))),
    ("slack used median %", lambda d: _n(_get(d, "icount", "slack_used_median_pct"))),
    ("host CPU ms/s (real time)", _cpu),
    ("real time: wakeups/s, ratio, early, past hard, worst late µs",
     lambda d: "—" if not d.get("realtime") else
     f"{d['realtime']['wakeups_per_s']:.2f}, {_n(d['realtime']['ratio'], '.3f')}, {d['realtime']['early']}, "
     f"{d['realtime']['past_hard']}, {d['realtime']['worst_late_us']}"),
]
SERIAL_TABLE = [    # the piggyback rows: real time only
    ("row", lambda d: d["config"]),
    ("class", lambda d: d["what"]),
    ("bytes sent", lambda d: _n(_get(d, "realtime", "serial_bytes_sent"))),
    ("uart IRQs (typing incl.)", lambda d: _n(_get(d, "realtime", "uart_irqs"))),
    ("wakeups", lambda d: _n(_get(d, "realtime", "wakeups"))),
    ("timer-caused", lambda d: _n(_get(d, "realtime", "timer_wakeups"))),
    ("other", lambda d: _n(_get(d, "realtime", "other_wakeups"))),
    ("optimum", lambda d: _n(_get(d, "realtime", "optimum"))),
    ("early", lambda d: _n(_get(d, "realtime", "early"))),
    ("past hard", lambda d: _n(_get(d, "realtime", "past_hard"))),
    ("worst late µs", lambda d: _n(_get(d, "realtime", "worst_late_us"))),
    ("host CPU ms/s", _cpu),
]


def _table(rows, columns, markdown):
    header = [h for h, _ in columns]
    cells = [[f(d) for _, f in columns] if d["status"] == "ok" else [d["config"], d["what"], d["status"]]
             for d in rows]
    if markdown:
        return ["| " + " | ".join(header) + " |", "|" + "---|" * len(columns)] + \
               ["| " + " | ".join(c + [""] * (len(columns) - len(c))) + " |" for c in cells]
    widths = [max([len(header[i])] + [len(c[i]) for c in cells if len(c) == len(columns)])
              for i in range(len(columns))]
    return ["  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip() for c in [header] + cells]


def table_lines(rows, markdown):
    classes = [d for d in rows if not d["serial"]]
    serial = [d for d in rows if d["serial"]]
    out = _table(classes, CLASS_TABLE, markdown) if classes else []
    if serial:
        out += [""] + _table(serial, SERIAL_TABLE, markdown)
    return out


def targets(rows):
    """[(target, measured, "met" | "MISSED" | "n/a")], from icount's counts
    and, for piggybacking, the real-time rows."""
    by = {d["config"]: d for d in rows if d["status"] == "ok"}
    out = []

    def add(what, measured, ok):
        out.append((what, measured, "n/a" if ok is None else "met" if ok else "MISSED"))

    def rate(name):
        return _get(by.get(name, {}), "icount", "wakeups_per_s")
    exact = rate("timerload-exact")
    if exact is not None:
        lo, hi = EXACT_TARGET * (1 - EXACT_TOLERANCE), EXACT_TARGET * (1 + EXACT_TOLERANCE)
        add(f"timerload exact: about {EXACT_TARGET:g} wakeups/s (± {EXACT_TOLERANCE:.0%})",
            f"{exact:.2f}/s (optimum {by['timerload-exact']['icount']['optimum_per_s']:.2f}/s)", lo <= exact <= hi)
    ten = by.get("timerload-10pct", {}).get("icount")
    if ten:
        add(f"timerload 10%: ratio to the optimum ≤ {RATIO_10PCT_MAX}", f"{ten['ratio']:.3f}",
            ten["ratio"] <= RATIO_10PCT_MAX)
        if exact:
            fewer = 1 - ten["wakeups_per_s"] / exact
            add(f"timerload 10%: ≥ {FEWER_10PCT:.0%} fewer wakeups than exact",
                f"{fewer:.1%} fewer ({ten['wakeups_per_s']:.2f} vs {exact:.2f}/s)", fewer >= FEWER_10PCT)
    one = rate("timerload-1pct")
    if one is not None and exact:
        fewer = 1 - one / exact
        add(f"timerload 1%: ≥ {FEWER_1PCT:.0%} fewer wakeups than exact",
            f"{fewer:.1%} fewer ({one:.2f} vs {exact:.2f}/s)", fewer >= FEWER_1PCT)
    for pct in ("10", "1"):
        on = _get(by.get(f"timerload-{pct}pct-serial", {}), "realtime", "timer_wakeups")
        off = _get(by.get(f"timerload-{pct}pct-serial-nopiggyback", {}), "realtime", "timer_wakeups")
        if on is not None and off:
            fewer = 1 - on / off
            add(f"piggybacking at {pct}%, 2 serial IRQs/s: ≥ {FEWER_PIGGYBACK:.0%} fewer timer-caused wakeups",
                f"{fewer:.1%} fewer ({on} on vs {off} off, real time)", fewer >= FEWER_PIGGYBACK)
    bad = [f"{d['config']} ({run}: early {d[run]['early']}, past hard {d[run]['past_hard']}, "
           f"worst late {d[run]['worst_late_us']} µs)"
           for d in by.values() for run in ("icount", "realtime")
           if d.get(run) and (d[run]["early"] or d[run]["past_hard"])]
    runs = sum(1 for d in by.values() for run in ("icount", "realtime") if d.get(run))
    if runs:
        add("timerload: every row 0 early, 0 past hard (icount and real time)",
            "; ".join(bad) if bad else f"all {runs} runs", not bad)
    return out


CSV_FIELDS = ["config", "what", "cls", "slack_pct", "serial", "piggyback", "status", "accel", "cpu_model",
              "icount_reps_wakeups"]
RUN_FIELDS = ["seconds", "fired", "wakeups", "wakeups_per_s", "optimum", "optimum_per_s", "ratio", "early",
              "past_hard", "worst_late_us", "slack_used_median_pct", "timer_wakeups", "other_wakeups"]
REALTIME_FIELDS = ["cpu_ms_per_s", "cpu_window_s", "serial_bytes_sent", "uart_irqs", "typed_bytes"]


def csv_header():
    return (CSV_FIELDS + [f"icount_{k}" for k in RUN_FIELDS] + [f"rt_{k}" for k in RUN_FIELDS] +
            REALTIME_FIELDS + ["qemu_version", "host_cpu"])


def csv_row(d, info):
    c = {k: d.get(k) for k in CSV_FIELDS}
    for run, prefix in (("icount", "icount_"), ("realtime", "rt_")):
        c.update({prefix + k: _get(d, run, k) for k in RUN_FIELDS})
    c.update({k: _get(d, "realtime", k) for k in REALTIME_FIELDS})
    c.update(qemu_version=info["QEMU"], host_cpu=info["host CPU"],
             icount_reps_wakeups="/".join(str(w) for w in _get(d, "icount", "reps_wakeups") or []))
    return {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in c.items()}


def markdown(rows, realtime_s):
    return ["", "## Timers with windows (timerload)", "",
            f"Every row: `timerload {WORKLOAD} SECONDS CLASS seed={SEED}` (50 periodic hrtimers, periods "
            f"1..5 s), tickless on the LAPIC. The wakeup columns are from runs of {ICOUNT_S} guest s under "
            f"-icount shift={ICOUNT_SHIFT},align=off,sleep=off, {ICOUNT_REPS} in one boot (the median's run shown; "
            "early and past hard the most of the three); host CPU and the "
            f"last column from runs of {realtime_s} s in real time (QEMU process, all threads, the window "
            "less its first and last half second; noisy when the host has other work). The piggyback rows "
            f"are real time only: the host sends a NUL byte every {SERIAL_INTERVAL_S:g} s during the run; "
            "'uart IRQs' counts the whole command, the typing of it and of `irqs` included.", ""] + \
        table_lines(rows, markdown=True)
