"""The bench's pictures (matplotlib, Agg: no display needed).

    wakeups.png   wakeups per idle second, log scale, Linux beside lull
    hostcpu.png   host CPU per idle second, log scale, with the floor
    latency.png   timer latency distributions (1 ms cyclictest)
    timeline.png  2 s of timer interrupts: periodic, dyntick, tickless, and
                  on 4 CPUs with one busy (a lane per CPU)
    timerload.png the timerload rows: wakeups/s and host CPU against slack
    breakdown.png the icount rows: a wakeup's path from deadline to callback,
                  stage by stage, and what follows the callback
"""
import csv
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# One colour per family, so a row's kind shows before its label is read.
COLOURS = {"floor": "#888888", "periodic": "#d62728", "dyntick": "#ff7f0e",
           "tickless": "#2ca02c", "linux": "#1f77b4"}
DPI = 80     # small files: the pictures are committed in docs/img/


def family(row):
    if row["kind"] in ("floor", "linux"):
        return row["kind"]
    return row["config"].split("-")[0]


def label(row):
    return row["config"] + (f" ({row['accel']})" if row["accel"] != "tcg" else "")


def bar_chart(rows, key, xlabel, title, path, floor_value=0.005):
    """Horizontal bars on a log axis, spread as error bars, value at the bar's end."""
    rows = [r for r in rows if r.get(key) is not None]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.4))
    y = range(len(rows))[::-1]
    vals = [max(r[key], floor_value) for r in rows]
    lo = [v - max(r.get(key + "_min") or v, floor_value) for v, r in zip(vals, rows)]
    hi = [max(r.get(key + "_max") or v, floor_value) - v for v, r in zip(vals, rows)]
    ax.barh(list(y), vals, color=[COLOURS[family(r)] for r in rows],
            xerr=[lo, hi] if any(len(r["reps"]) > 1 for r in rows) else None, capsize=3)
    for yi, r, v, h in zip(y, rows, vals, hi):
        ax.text((v + h) * 1.2, yi, f"{r[key]:.3g}", va="center", fontsize=8)
    ax.set_yticks(list(y))
    ax.set_yticklabels([label(r) for r in rows], fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(floor_value, max(vals) * 8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return os.path.basename(path)


def latency_chart(rows, path):
    """Each row: its log2 histogram as bars of relative height, p50 and p99 marked."""
    rows = [r for r in rows if r.get("latency")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(rows) + 1.4))
    for i, r in enumerate(rows[::-1]):
        lat = r["latency"]
        top = max(n for _, _, n in lat["hist"])
        for lo, hi, n in lat["hist"]:
            h = 0.8 * n / top
            ax.fill_between([max(lo, 0.5), hi], i - 0.4, i - 0.4 + h, color=COLOURS[family(r)],
                            alpha=0.75, linewidth=0)
        ax.plot([lat["p50"]], [i], "k|", markersize=12)
        ax.plot([lat["p99"]], [i], "kv", markersize=5)
        ax.plot([max(lat["max"], 0.5)], [i], "kx", markersize=5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{label(r)} (n={r['latency']['n']})" for r in rows[::-1]], fontsize=8)
    ax.set_xscale("log")
    lows = [max(lo, 0.5) for r in rows for lo, _, _ in r["latency"]["hist"]]
    ax.set_xlim(min(lows) / 2, max(r["latency"]["max"] for r in rows) * 3)
    ax.set_xlabel("timer latency, µs (log2 buckets; | p50, ▼ p99, × max)")
    ax.set_title("How late a 1 ms periodic timer fires (cyclictest loop)", fontsize=10)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return os.path.basename(path)


# The stages of `latency ... breakdown` (include/time/path.h), in path order.
BEFORE_CALLBACK = ["deadline to entry", "stack guard", "irq enter", "handler", "eoi", "hrtimers"]
AFTER_CALLBACK = ["callbacks", "wheel", "reprogram", "watchdog", "exit"]


def breakdown_chart(rows, path):
    """One stacked bar per icount row: the timer interrupt's path from its
    entry, ns per stage of the average wakeup, the stages up to the
    callback in colour and the ones after it grey.  (The part before entry
    is in the table: in periodic and dyntick mode it is mostly the wait
    for the next tick, milliseconds that would hide the rest.)"""
    rows = [r for r in rows if (r.get("latency") or {}).get("breakdown")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 2.2))
    cmap = plt.get_cmap("tab10")
    stages = BEFORE_CALLBACK[1:] + AFTER_CALLBACK
    for i, r in enumerate(rows[::-1]):
        b, x = r["latency"]["breakdown"], 0.0
        for k, name in enumerate(stages):
            us = max(b.get(name, 0), 0) / 1000
            grey = name in AFTER_CALLBACK
            colour = str(0.35 + 0.12 * AFTER_CALLBACK.index(name)) if grey else cmap(k + 1)
            ax.barh(i, us, left=x, color=colour, edgecolor="white", linewidth=0.5,
                    label=name if i == 0 else None)
            x += us
        callback = sum(max(b.get(n, 0), 0) for n in BEFORE_CALLBACK[1:]) / 1000
        ax.plot([callback], [i], "k|", markersize=14)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["config"] for r in rows[::-1]], fontsize=8)
    ax.set_xlabel("µs of guest time from the interrupt's entry (16 ns per instruction); "
                  "| = the callback runs")
    ax.set_title("The timer interrupt's path, stage by stage, under -icount shift=4 "
                 "(latency ... breakdown)", fontsize=10)
    ax.legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return os.path.basename(path)


def read_trace(path):
    """The events of a `trace` CSV, and the CPU count its header gives (1
    if it gives none).  A trace from before the cpu column is all CPU 0's."""
    with open(path) as f:
        lines = list(f)
    head = next((line for line in lines if line.startswith("# trace:")), "")
    m = re.search(r"\bcpus=(\d+)", head)
    events = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    for e in events:
        e["cpu"] = int(e.get("cpu") or 0)
    return events, int(m.group(1)) if m else 1


def timeline_chart(rows, path, seconds=2.0):
    """One panel per traced row, one lane per CPU in it: timer interrupts as
    marks, idle sleeps as bars (coloured when ticks were skipped, grey when
    only waiting for the next tick).  Every CPU the row booted with gets a
    lane, with events or not, so a CPU whose tick is stopped shows as an
    empty lane rather than no lane."""
    rows = [r for r in rows if r.get("trace") and os.path.exists(r["trace"])]
    if not rows:
        return None
    traces = [read_trace(r["trace"]) for r in rows]
    lanes = [max([r.get("cpus", 1), n] + [e["cpu"] + 1 for e in ev]) for r, (ev, n) in zip(rows, traces)]
    fig, axes = plt.subplots(len(rows), 1, figsize=(9, 0.45 * sum(lanes) + 0.9 * len(rows) + 0.8),
                             sharex=True, gridspec_kw=dict(height_ratios=[n + 1.2 for n in lanes]))
    axes = axes if len(rows) > 1 else [axes]
    for ax, r, (ev, _), n in zip(axes, rows, traces, lanes):
        t0 = min((int(e["t_ns"]) for e in ev), default=0)
        colour = COLOURS[family(r)]
        irqs = [[] for _ in range(n)]
        enter = [None] * n          # per CPU: (start, skipped ticks) of the sleep it is in
        for e in ev:
            t, cpu = (int(e["t_ns"]) - t0) / 1e9, e["cpu"]
            y = n - 1 - cpu         # cpu 0 on top
            if e["event"] == "timer_irq":
                irqs[cpu].append(t)
            elif e["event"] == "idle_enter":
                enter[cpu] = (t, int(e["skip_ticks"] or 0))
            elif e["event"] == "idle_exit" and enter[cpu]:
                start, skip = enter[cpu]
                _sleep_bar(ax, y, start, t, skip, colour)
                enter[cpu] = None
        for cpu in range(n):
            y = n - 1 - cpu
            if cpu:                 # a thin line between lanes
                ax.axhline(y + 1, color="#cccccc", linewidth=0.5)
            if enter[cpu]:          # still asleep when the trace stopped
                _sleep_bar(ax, y, enter[cpu][0], seconds, enter[cpu][1], colour)
            ax.vlines(irqs[cpu], y + 0.6, y + 1.0, color="black", linewidth=0.6)
        ax.set_ylim(0, n + 0.05)
        ax.set_yticks([n - 1 - cpu + 0.5 for cpu in range(n)] if n > 1 else [])
        if n > 1:
            ax.set_yticklabels([f"cpu {cpu}" + (" busy" if cpu == r.get("busy_cpu") else "")
                                for cpu in range(n)], fontsize=8)
        ax.set_xlim(0, seconds)
        counts = [len(i) for i in irqs]
        total = sum(counts)
        per = f" ({' / '.join(str(c) for c in counts)} on cpu 0/…/{n - 1})" if n > 1 else ""
        ax.set_title(f"{r['what']}: {total} timer interrupt{'s' if total != 1 else ''} in {seconds:g} s{per}",
                     fontsize=9, loc="left")
    axes[-1].set_xlabel("seconds of an idle shell (| timer interrupt; bar: halted, coloured where ticks were skipped)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return os.path.basename(path)


def _sleep_bar(ax, y, start, end, skipped, colour):
    ax.broken_barh([(start, end - start)], (y + 0.15, 0.4), linewidth=0,
                   color=colour if skipped else "#dddddd", alpha=0.6 if skipped else 1)


def timerload_chart(rows, path):
    """Wakeups/s (icount) against the percent rows' slack, the optimum as a
    line, the named classes as dotted levels; host CPU (real time) below."""
    pct = sorted((r for r in rows if r["status"] == "ok" and r["slack_pct"] is not None and not r["serial"]
                  and r.get("icount")), key=lambda r: r["slack_pct"])
    if not pct:
        return None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.2), sharex=True,
                                      gridspec_kw=dict(height_ratios=[3, 2]))
    x = [r["slack_pct"] for r in pct]
    top.plot(x, [r["icount"]["wakeups_per_s"] for r in pct], "o-", color=COLOURS["tickless"],
             label="wakeups/s (icount)")
    top.plot(x, [r["icount"]["optimum_per_s"] for r in pct], "k--", linewidth=1, label="optimum/s")
    for r in pct:
        top.annotate(f"{r['icount']['wakeups_per_s']:.2f}", (r["slack_pct"], r["icount"]["wakeups_per_s"]),
                     textcoords="offset points", xytext=(4, 5), fontsize=8)
    named = [r for r in rows if r["status"] == "ok" and r["slack_pct"] is None and r.get("icount")]
    for r in named:
        w = r["icount"]["wakeups_per_s"]
        top.axhline(w, color="#888888", linestyle=":", linewidth=0.8)
        top.text(max(x), w, f"{r['cls']} {w:.2f}/s ", fontsize=7, color="#555555", ha="right", va="bottom")
    top.set_yscale("log")
    top.set_ylabel("wakeups per second (log)")
    top.set_title("timerload 50 1000 5000 60: 50 periodic hrtimers, one window per slack", fontsize=10)
    top.legend(fontsize=8, loc="upper right")
    top.grid(alpha=0.3, which="both")
    cpu = [(r["slack_pct"], r["realtime"]["cpu_ms_per_s"]) for r in pct if r.get("realtime")]
    if cpu:
        bottom.plot([c[0] for c in cpu], [c[1] for c in cpu], "s-", color=COLOURS["periodic"])
        for xc, c in cpu:
            bottom.annotate(f"{c:.2f}", (xc, c), textcoords="offset points", xytext=(4, 5), fontsize=8)
    bottom.set_ylabel("host CPU, ms/s (real time)")
    bottom.set_ylim(bottom=0)
    bottom.set_xscale("symlog", linthresh=1)
    bottom.set_xticks(x)
    bottom.set_xticklabels(["exact" if v == 0 else f"{v}%" for v in x])
    bottom.set_xlabel("slack: hard end - soft end, % of the period")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return os.path.basename(path)


def draw_all(rows, out, timerload_rows=()):
    ok = [r for r in rows if r["status"] == "ok"]
    pictures = [
        bar_chart([r for r in ok if r["kind"] != "floor"], "wakeups_per_s", "wakeups per second of idle (log)",
                  "Idle wakeups per second: lull's tick modes and an idle Linux guest",
                  os.path.join(out, "wakeups.png")),
        bar_chart(ok, "cpu_ms_per_s", "host CPU, ms per second of guest idle (log)",
                  "What an idle guest costs the host (QEMU process, all threads)",
                  os.path.join(out, "hostcpu.png")),
        latency_chart(ok, os.path.join(out, "latency.png")),
        timeline_chart([r for r in ok if r.get("trace")], os.path.join(out, "timeline.png")),
        timerload_chart(timerload_rows, os.path.join(out, "timerload.png")),
        breakdown_chart(ok, os.path.join(out, "breakdown.png")),
    ]
    return [p for p in pictures if p]
