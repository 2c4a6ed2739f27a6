"""The bench's output: medians of the repetitions, the table (terminal,
results.md, results.csv), the targets lull aims for, and the pictures."""
import csv
import json
import os
import statistics

import timerload

SLEEPS_MS = (10, 100, 1000)


def _stats(values):
    """(median, min, max) of the values that were measured, or Nones."""
    v = [x for x in values if x is not None]
    return (statistics.median(v), min(v), max(v)) if v else (None, None, None)


def summarize(row):
    """Fold the repetitions of one row into medians and spreads."""
    reps = row["reps"]
    for key in ("wakeups_per_s", "cpu_ms_per_s", "rest_cpu_ms_per_s", "drift_ms", "boot_s", "first_byte_s", "halted_pct", "span_s"):
        row[key], row[key + "_min"], row[key + "_max"] = _stats([r.get(key) for r in reps])
    row["drift_ppm"] = _stats([r["drift_ms"] * 1000 / r["drift_window_s"] for r in reps
                               if r.get("drift_ms") is not None])[0]
    row["all_irqs_per_s"] = _stats([r["all_irqs"] / r["span_s"] for r in reps
                                    if r.get("all_irqs") is not None])[0]
    per_cpu = [r["per_cpu_wakeups_per_s"] for r in reps if r.get("per_cpu_wakeups_per_s")]
    if per_cpu:     # several CPUs: each CPU's median over the repetitions
        row["per_cpu_wakeups_per_s"] = [statistics.median(c) for c in zip(*per_cpu)]
        row["total_wakeups_per_s"], row["total_wakeups_per_s_min"], row["total_wakeups_per_s_max"] = \
            _stats([r["total_wakeups_per_s"] for r in reps if r.get("total_wakeups_per_s") is not None])
    causes = next((r["causes"] for r in reps if r.get("causes")), [])
    causes = sorted(causes, key=lambda c: -int(c[0]))[:3]
    row["top_causes"] = "; ".join(f"{rate}/s {name}" for _, rate, name in causes)
    return row


# ------------------------------------------------------------ formatting

def fmt(v, spec=".2f", none="—"):
    return none if v is None else format(v, spec)


def fmt_num(v, none="—"):
    """Enough digits to see small numbers, no noise on large ones."""
    if v is None:
        return none
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    if abs(v) >= 0.1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def spread(row, key):
    lo, hi = row.get(key + "_min"), row.get(key + "_max")
    if lo is None or len(row["reps"]) < 2:
        return ""
    return f" ({fmt_num(lo)}–{fmt_num(hi)})"


def latency_cell(row):
    lat = row.get("latency")
    if not lat:
        return "—"
    # A clipped percentile (past lull's 20 ms histogram) is a lower bound.
    p50, p99 = (("≥" if lat.get(k + "_clipped") else "") + str(lat[k]) for k in ("p50", "p99"))
    return f"{p50} / {p99} / {lat['max']}"


def sleep_cell(row):
    s = row.get("sleep_overshoot_ms")
    return " / ".join(f"{s[ms]:+.1f}" for ms in SLEEPS_MS) if s else "—"


def boot_cell(row):
    parts = [fmt(row.get("boot_s"), ".2f")]
    if row.get("kind") == "lull" and row.get("boot_s") is not None and row.get("first_byte_s") is not None:
        # QEMU's part (start to the first serial byte) and lull's own.
        parts[0] += f" (lull {(row['boot_s'] - row['first_byte_s']) * 1000:.0f} ms)"
    if row.get("boot_iso_s") is not None:
        parts.append(f"ISO {row['boot_iso_s']:.2f}")
    if row.get("boot_to_init_s") is not None:
        parts.append(f"init at {row['boot_to_init_s']:.2f}")
    return ", ".join(parts)


def per_cpu_cell(row):
    """Several CPUs: each CPU's wakeups/s, cpu 0 first, and the total."""
    rates = row.get("per_cpu_wakeups_per_s")
    if not rates:
        return "—"
    cells = [fmt_num(w) + (" busy" if i == row.get("busy_cpu") else "") for i, w in enumerate(rates)]
    return " / ".join(cells) + f" (Σ {fmt_num(row.get('total_wakeups_per_s'))})"


TABLE = [   # (header, cell) for the terminal and results.md
    ("configuration", lambda r: r["config"]),
    ("accel", lambda r: r["accel"]),
    ("guest CPU", lambda r: r["cpu_model"]),
    ("wakeups/s", lambda r: fmt_num(r.get("wakeups_per_s")) + spread(r, "wakeups_per_s")),
    ("CPUs", lambda r: str(r.get("cpus", 1))),
    ("per-CPU wakeups/s, cpu 0/1/2/… (Σ)", per_cpu_cell),
    ("host CPU ms per idle s", lambda r: fmt_num(r.get("cpu_ms_per_s")) + spread(r, "cpu_ms_per_s") +
     (f"; less the busy vCPU {fmt_num(r.get('rest_cpu_ms_per_s'))}{spread(r, 'rest_cpu_ms_per_s')}"
      if r.get("busy_cpu") is not None else "")),
    ("latency p50/p99/max µs", latency_cell),
    ("sleep 10/100/1000 late ms", sleep_cell),
    ("drift ms", lambda r: fmt(r.get("drift_ms"), "+.2f")),
    ("boot s", boot_cell),
]


def table_lines(rows, markdown):
    rows = [r for r in rows if r["kind"] != "boot"]     # boot_lines has those
    header = [h for h, _ in TABLE]
    ok = [[f(r) for _, f in TABLE] for r in rows if r["status"] == "ok"]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(TABLE)]
        for r in rows:
            c = [f(r) for _, f in TABLE] if r["status"] == "ok" else \
                [r["config"], r["accel"], r["cpu_model"], r["status"]] + [""] * (len(TABLE) - 4)
            lines.append("| " + " | ".join(c) + " |")
        return lines
    widths = [max(len(c[i]) for c in [header] + ok) for i in range(len(TABLE))]

    def line(c):
        return "  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip()
    out = [line(header)]
    for r in rows:     # a row that did not run shows its status instead of numbers
        out.append(line([f(r) for _, f in TABLE]) if r["status"] == "ok" else
                   line([r["config"], r["accel"], r["cpu_model"]]) + "  " + r["status"])
    return out


# ------------------------------------------------------------ targets

def read_timer_core(out):
    """make bench-timers' results (bench/timer_bench.c), or [] if it did not run."""
    try:
        with open(os.path.join(out, "timer-core.csv")) as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return []
    for r in rows:
        for k, v in r.items():
            if k != "workload":
                r[k] = float(v) if v else None
    return rows


def timer_core_targets(tc, add):
    if not tc:
        add("timer wheel vs binary heap (host micro-benchmark)", "did not run (make bench-timers)", None)
        return
    t = next((r for r in tc if r["workload"] == "timeout"), None)
    if t and t["wheel_ns_per_op"]:
        ratio = t["heap_ns_per_op"] / t["wheel_ns_per_op"]
        instr = (f"; {t['heap_instr_per_op'] / t['wheel_instr_per_op']:.2f}x in instructions"
                 if t["wheel_instr_per_op"] else "")
        add("timer wheel add+cancel ≥ 3x faster per op than the heap",
            f"{ratio:.2f}x ({t['wheel_ns_per_op']:.1f} vs {t['heap_ns_per_op']:.1f} ns/op{instr})", ratio >= 3)
    # Flat means flat both ways: asked again (each bucket's earliest timer
    # remembered) and asked first after a change (the lists walked).
    for workload, how in (("next_expiry", "query repeated, cached"),
                          ("next_expiry_uncached", "first query after a change, uncached")):
        nx = [r for r in tc if r["workload"] == workload]
        if not nx:
            continue
        key = "wheel_instr_per_op" if all(r["wheel_instr_per_op"] for r in nx) else "wheel_ns_per_op"
        v = [r[key] for r in nx]
        unit = "instr" if key.endswith("instr_per_op") else "ns"
        add(f"next-expiry cost flat from {int(nx[0]['pending']):,} to {int(nx[-1]['pending']):,} pending "
            f"({how})", f"{min(v):.0f}–{max(v):.0f} {unit}/query (max/min {max(v) / min(v):.2f})",
            max(v) / min(v) <= 1.5)


def smp_targets(by, add):
    """The several-CPU rows: what each tick mode does with 4 CPUs idle, and
    with one of them busy (docs/smp.md: the 2005 rule and the per-CPU one)."""
    def rates(name):
        r = by.get(name)
        return (r, r.get("per_cpu_wakeups_per_s")) if r and r.get("per_cpu_wakeups_per_s") else (r, None)

    def listed(per, busy=None):
        return " / ".join(fmt_num(w) + (" (busy)" if i == busy else "") for i, w in enumerate(per)) + "/s"
    f1, f4 = (by.get(n, {}).get("cpu_ms_per_s") for n in ("floor", "floor-4cpu"))
    if f1 and f4:
        add("floor on 4 CPUs (APs never started) costs about the 1-CPU floor (≤ 2x)",
            f"{fmt_num(f4)} vs {fmt_num(f1)} ms/s ({f4 / f1:.1f}x)", f4 <= 2 * f1)
    r, per = rates("tickless-lapic-4cpu")
    if per:
        add("tickless, 4 idle CPUs: ≤ 0.2 wakeups/s on every CPU", "cpu 0/1/2/3: " + listed(per),
            max(per) <= 0.2)
        if f4:
            c = r["cpu_ms_per_s"]
            add("tickless, 4 idle CPUs: host CPU within 2x of the 4-CPU floor",
                f"{fmt_num(c)} vs {fmt_num(f4)} ms/s ({c / f4:.1f}x)", c <= 2 * f4)
    r, per = rates("dyntick-lapic-4cpu")
    if per:
        add(f"dyntick, 4 idle CPUs: every CPU skips (≤ 10 % of HZ={r['hz']}, {r['hz'] / 10:g}/s, each)",
            "cpu 0/1/2/3: " + listed(per), max(per) <= r["hz"] / 10)
    r, per = rates("periodic-250-4cpu")
    if per:
        want = r["hz"] * r["cpus"]
        total = r["total_wakeups_per_s"]
        add(f"periodic, 4 CPUs: HZ x CPUs = {want} wakeups/s in total (± 3 %)",
            f"{fmt_num(total)}/s ({(total / want - 1) * 100:+.1f} %; cpu 0/1/2/3: {listed(per)})",
            abs(total / want - 1) <= 0.03)
    r, per = rates("tickless-lapic-4cpu-busy1")
    if per:
        idle = [w for i, w in enumerate(per) if i != r["busy_cpu"]]
        add(f"tickless, CPU {r['busy_cpu']} busy: each idle CPU ≤ 0.2 wakeups/s",
            "cpu 0/1/2/3: " + listed(per, r["busy_cpu"]), max(idle) <= 0.2)
    d, per = rates("dyntick-lapic-4cpu-busy1")
    if per:
        idle = [w for i, w in enumerate(per) if i != d["busy_cpu"]]
        hz = d["hz"]
        add(f"dyntick, CPU {d['busy_cpu']} busy: every idle CPU keeps ticking (HZ={hz} ± 10 % each)",
            "cpu 0/1/2/3: " + listed(per, d["busy_cpu"]), all(0.9 * hz <= w <= 1.1 * hz for w in idle))
        p, pper = rates("periodic-250-4cpu-busy1")
        if pper:    # how many ticks this host delivered at all, with a CPU spinning
            add(f"… periodic with CPU {d['busy_cpu']} busy, for comparison (the ticks this host delivers)",
                "cpu 0/1/2/3: " + listed(pper, p["busy_cpu"]), "info")
        t = by.get("tickless-lapic-4cpu-busy1")
        if t and t.get("rest_cpu_ms_per_s") is not None:
            dc, tc = d["rest_cpu_ms_per_s"], t["rest_cpu_ms_per_s"]
            add(f"… what that costs: host CPU less the busy vCPU's thread, dyntick against tickless "
                f"with CPU {d['busy_cpu']} busy", f"{fmt_num(dc)} vs {fmt_num(tc)} ms/s "
                f"({dc - tc:+.1f} ms/s; all threads {fmt_num(d['cpu_ms_per_s'])} vs "
                f"{fmt_num(t['cpu_ms_per_s'])})", "info")


def timeout_census_line(r):
    """What the timeout workload did, as bench/timer_bench.c counted it."""
    return (f"Timeout workload, counted: {r['cancel_pct']:.1f} % of operations cancelled a pending "
            f"timer, {r['rearm_pct']:.1f} % re-armed one, {r['arm_pct']:.1f} % armed an idle one; of the "
            f"timeouts that ended, {r['ended_early_pct']:.1f} % were cancelled or re-armed before they "
            f"expired; pending after each operation: mean {r['pending_mean']:.0f}, max "
            f"{r['pending_max']:.0f}; the heap swapped {r['heap_swaps_per_op']:.2f} times per operation; "
            f"{r['rearm_kept_pct']:.1f} % of the re-arms left the timer in its wheel bucket.")


def icount_targets(rows, add):
    """Under -icount: the repeat, and tickless latency against its targets
    and against the Linux guests' in the same QEMU."""
    ic = {r["config"]: r for r in rows if r["status"] == "ok" and "icount" in (r.get("accel") or "")}
    for n, r in ic.items():
        if r["kind"] in ("lull", "boot") and r.get("icount_repeat") is not None:
            add(f"{n}: two boots under icount, the same figures",
                "identical" if r["icount_repeat"] else "they differ", r["icount_repeat"])
    own = (ic.get("boot-pc") or {}).get("boot_own_ms")
    if own is not None:
        add("boot-pc: lull's own boot (kmain to the prompt) ≤ 15 ms on -machine pc, under icount",
            f"{own:.2f} ms", own <= 15)
    lat = (ic.get("tickless-lapic-icount") or {}).get("latency")
    if lat:
        add("tickless-lapic-icount: p50 ≤ 10 µs, p99 ≤ 12 µs", f"{lat['p50']} / {lat['p99']} µs",
            lat["p50"] <= 10 and lat["p99"] <= 12)
        for ln in ("linux-686-icount", "linux-amd64-icount"):
            ll = (ic.get(ln) or {}).get("latency")
            if ll:
                add(f"tickless-lapic-icount: p99 ≤ 1/5 of {ln}'s", f"{lat['p99']} vs {ll['p99']} µs",
                    lat["p99"] * 5 <= ll["p99"])


def targets(rows, timer_core=()):
    """The targets lull aims for, each with what was measured and met / missed."""
    by = {r["config"]: r for r in rows if r["status"] == "ok" and r["accel"] == "tcg"}

    def get(name, key):
        return by.get(name, {}).get(key)
    out = []

    def add(what, measured, ok):
        verdict = ok if isinstance(ok, str) else "n/a" if ok is None else "met" if ok else "MISSED"
        out.append((what, measured, verdict))

    one_cpu = {n: r for n, r in by.items() if r.get("cpus", 1) == 1}
    tickless = [n for n in one_cpu if n.startswith("tickless")]
    linux_amd = get("linux-amd64", "wakeups_per_s")
    hz1000 = get("periodic-1000", "wakeups_per_s")
    for n in tickless:
        w = get(n, "wakeups_per_s")
        add(f"{n}: ≤ 0.2 wakeups/s", f"{fmt_num(w)}/s", w <= 0.2)
        if linux_amd is not None:
            add(f"{n}: fewer wakeups than tickless Linux", f"{fmt_num(w)} vs {fmt_num(linux_amd)}/s", w < linux_amd)
        if hz1000 is not None:
            add(f"{n}: ≥ 1000x fewer wakeups than periodic HZ=1000",
                f"{fmt_num(hz1000 / w) if w else '∞'}x", w == 0 or hz1000 / w >= 1000)
    floor = get("floor", "cpu_ms_per_s")
    for n in tickless:
        c = get(n, "cpu_ms_per_s")
        if floor:
            add(f"{n}: host CPU within 2x of the floor", f"{fmt_num(c)} vs {fmt_num(floor)} ms/s "
                f"({c / floor:.1f}x)", c <= 2 * floor)
        lc = get("linux-amd64", "cpu_ms_per_s")
        if lc is not None:
            add(f"{n}: host CPU ≥ 10x lower than tickless Linux", f"{lc / c:.0f}x", lc / c >= 10)
        pc = get("periodic-1000", "cpu_ms_per_s")
        if pc is not None:
            add(f"{n}: host CPU ≥ 100x lower than periodic HZ=1000", f"{pc / c:.0f}x", pc / c >= 100)
    for n in tickless:
        lat = get(n, "latency")
        if lat:
            add(f"{n}: latency p99 ≤ 100 µs (TCG)", f"{lat['p99']} µs", lat["p99"] <= 100)
            for ln in ("linux-686", "linux-amd64"):
                ll = get(ln, "latency")
                if ll:
                    add(f"{n}: p99 better than {ln}'s cyclictest", f"{lat['p99']} vs {ll['p99']} µs",
                        lat["p99"] < ll["p99"])
    smp_targets(by, add)
    icount_targets(rows, add)
    # Boot time on one CPU: starting the others adds their INIT waits.
    lull = [r for r in one_cpu.values() if r["kind"] == "lull" and r.get("boot_s") is not None]
    if lull:
        b = [r["boot_s"] for r in lull]
        first = min(r["first_byte_s"] for r in lull)
        own = [r["boot_s"] - r["first_byte_s"] for r in lull if r.get("first_byte_s") is not None]
        add("boot to prompt with -kernel ≤ 150 ms (TCG)", f"{min(b) * 1000:.0f}–{max(b) * 1000:.0f} ms "
            f"(medians per row; first serial byte from {first * 1000:.0f} ms; lull's own part, first "
            f"byte to prompt, {min(own) * 1000:.0f}–{max(own) * 1000:.0f} ms)", max(b) <= 0.150)
    timer_core_targets(timer_core, add)
    return out


# ------------------------------------------------------------ files

CSV_FIELDS = ["config", "what", "kind", "status", "accel", "qemu", "qemu_version", "cpu_model", "host_cpu",
              "append", "tick", "package", "reps", "idle_s", "wakeups_per_s", "wakeups_per_s_min",
              "wakeups_per_s_max", "cpus", "busy_cpu", "per_cpu_wakeups_per_s", "total_wakeups_per_s", "all_irqs_per_s", "cpu_ms_per_s", "cpu_ms_per_s_min", "cpu_ms_per_s_max",
              "rest_cpu_ms_per_s",
              "halted_pct", "lat_n", "lat_min_us", "lat_avg_us", "lat_p50_us", "lat_p99_us", "lat_max_us",
              "sleep10_late_ms", "sleep100_late_ms", "sleep1000_late_ms", "sleep_base_ms",
              "drift_ms", "drift_ppm", "boot_s", "first_byte_s", "boot_iso_s", "boot_to_init_s",
              "boot_own_ms",
              "top_causes", "notes"]


def csv_row(r, info):
    d = {k: r.get(k) for k in CSV_FIELDS}
    d.update(qemu_version=info["QEMU"], host_cpu=info["host CPU"], reps=len(r["reps"]),
             idle_s=r.get("span_s"), notes="; ".join(r["notes"]))
    if r.get("per_cpu_wakeups_per_s"):     # cpu 0 first, "/" between CPUs
        d["per_cpu_wakeups_per_s"] = "/".join(f"{w:.6g}" for w in r["per_cpu_wakeups_per_s"])
    lat = r.get("latency") or {}
    for k in ("n", "min", "avg", "p50", "p99", "max"):
        d[f"lat_{k}" + ("" if k == "n" else "_us")] = lat.get(k)
    for ms in SLEEPS_MS:
        d[f"sleep{ms}_late_ms"] = (r.get("sleep_overshoot_ms") or {}).get(ms)
    return {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in d.items()}


def write_all(rows, info, out, plots=True, timerload_rows=()):
    lines = table_lines(rows, markdown=False) if rows else []
    if timerload_rows:
        lines += [""] + timerload.table_lines(timerload_rows, markdown=False)
    print("\n" + "\n".join(lines) + "\n")
    with open(os.path.join(out, "results.json"), "w") as f:     # every repetition, for re-plotting
        json.dump(dict(machine=info, rows=rows, timerload=timerload_rows), f, indent=1, default=str)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(csv_row(r, info))
    files = ["results.csv"]
    if timerload_rows:
        with open(os.path.join(out, "timerload.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=timerload.csv_header())
            w.writeheader()
            for r in timerload_rows:
                w.writerow(timerload.csv_row(r, info))
        files.append("timerload.csv")
    pictures = []
    if plots:
        try:
            import plots as plotting
            pictures = plotting.draw_all(rows, out, timerload_rows)
        except ImportError as e:
            print(f"bench: no pictures ({e}; tools/install-deps bench installs python3-matplotlib)")
    tc = read_timer_core(out)
    md = markdown(rows, info, pictures, tc, timerload_rows)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md)
    for what, measured, verdict in targets(rows, tc) + timerload.targets(timerload_rows):
        print(f"target: {verdict:6} {what}: {measured}")
    print(f"\nbench: {os.path.join(out, 'results.md')}, {', '.join(files)}" +
          (", " + ", ".join(pictures) if pictures else ""))


def timerload_rows_window(rows):
    """The real-time window the timerload rows ran for (None: none ran)."""
    return next((r["realtime"]["seconds"] for r in rows if r.get("realtime")), None)


BREAKDOWN_STAGES = ["deadline to entry", "stack guard", "irq enter", "handler", "eoi", "hrtimers",
                    "callbacks", "wheel", "reprogram", "watchdog", "exit"]


def boot_lines(rows):
    """lull's own boot per machine, under -icount, as lull states it."""
    rows = [r for r in rows if r["kind"] == "boot"]
    if not rows:
        return []
    md = ["", "## lull's own boot, per machine (under -icount)", "",
          "`boot: ready in N ms`: kmain's first line to the prompt, by the TSC at its calibrated rate, "
          "under -icount shift=4,sleep=off (a count of instructions; QEMU's own start-up and the "
          "loader are not in it), booted twice.", "",
          "| configuration | machine | CPUs | lull's own boot ms | two boots | notes |", "|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "ok":
            md.append(f"| {r['config']} | | | {r['status']} | | |")
            continue
        rep = {True: "identical", False: "**differ**", None: "—"}[r.get("icount_repeat")]
        md.append(f"| {r['config']} | {r['what'].split(', ', 1)[1]} | {r['cpus']} | "
                  f"{fmt(r.get('boot_own_ms'), '.2f')} | {rep} | {'; '.join(r['notes'])} |")
    return md


def icount_lines(rows):
    """The icount section: each row's latency, whether its two boots gave the
    same figures, and where the average wakeup's time went (ns per stage)."""
    rows = [r for r in rows if "icount" in (r.get("accel") or "") and r.get("latency")]
    if not rows:
        return []
    md = ["", "## Under -icount: the timer path by instruction", "",
          "Every row under -icount shift=4,sleep=off (16 ns of guest time per instruction, idle "
          "time skipped), `latency N 1000` started by the `run=` boot option so that no typed input "
          "moves it; lull's rows boot twice and must give the same figures.  The breakdown is "
          "`latency ... breakdown` (include/time/path.h), a second run with the stamps on: ns per "
          "stage of the average wakeup; \"to callback\" is that run's average latency, the stamps' "
          "own cost included (the p50/p99/max are the plain run's).", "",
          "| configuration | p50 / p99 / max µs | two boots | " +
          " | ".join(BREAKDOWN_STAGES[:6]) + " | to callback | after it |",
          "|---|---|---|" + "---|" * 8]
    for r in rows:
        lat = r["latency"]
        b = lat.get("breakdown") or {}
        rep = {True: "identical", False: "**differ**", None: "—"}[r.get("icount_repeat")]
        cells = [fmt(b.get(s), ".0f") for s in BREAKDOWN_STAGES[:6]]
        after = sum(b.get(s, 0) for s in BREAKDOWN_STAGES[6:]) if b else None
        md.append(f"| {r['config']} | {lat['p50']} / {lat['p99']} / {lat['max']} | {rep} | " +
                  " | ".join(cells) + f" | {fmt(lat.get('breakdown_avg', lat['avg']) * 1000, '.0f')} | "
                  f"{fmt(after, '.0f')} |")
    return md


def markdown(rows, info, pictures, timer_core=(), timerload_rows=()):
    md = ["# lull benchmark results", ""]
    md += [f"- **{k}**: {v}" for k, v in info.items()]
    md += ["", "Wakeups/s: lull counts every wakeup from halt over the idle window (`idle`); for Linux, "
           "the interrupts of the timer lines of /proc/interrupts (LOC, `timer`, `hpet*`; every line "
           "is in results.csv as all_irqs_per_s). Host CPU: the QEMU process, all threads, from "
           "/proc/PID/task/*/schedstat, over the idle window less its first and last half second. "
           "Both: median of the repetitions (min–max in brackets). "
           "CPUs: the rows with 4 were booted with -smp 4; their per-CPU wakeups/s are each CPU's count "
           "over the idle window (`idle` prints a line per CPU; the wakeups/s column is cpu 0's), the "
           "busy CPU marked (its state from `cpus` after the window); they are not given latency or "
           "sleep figures. With a CPU busy, the host CPU also "
           "without the busiest QEMU thread (the spinning vCPU): what the idle CPUs cost. "
           "Latency: a cyclictest loop with a 1 ms period; the rows whose accel says icount measure only "
           "that, under -icount shift=4,sleep=off, where the guest's clock counts its own instructions "
           "and a host stall cannot show. Sleep: how much later than asked "
           "`sleep MS` returned, timed from the host. Drift: guest uptime minus host time over "
           "the idle window. Boot: QEMU start to the prompt (host clock).", ""]
    md += table_lines(rows, markdown=True) if rows else ["(no configuration rows in this run)"]
    if timerload_rows:
        md += timerload.markdown(timerload_rows, timerload_rows_window(timerload_rows))
    md += icount_lines(rows)
    md += boot_lines(rows)
    md += ["", "## Per configuration", "",
           "| configuration | what | boot options | tick | top wakeup causes (first window) | notes |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        notes = "; ".join(([] if r["status"] == "ok" else [r["status"]]) + r["notes"] +
                          ([f"package {r['package']}"] if r.get("package") else []))
        md.append(f"| {r['config']} | {r['what']} | `{r['append']}` | {r.get('tick', '')} | "
                  f"{r.get('top_causes', '')} | {notes} |")
    md += ["", "## Targets", ""]
    short = [r["span_s"] for r in rows if r.get("span_s") and r["kind"] == "lull" and r["span_s"] < 20]
    if short:   # the wakeup that ends `idle` itself is 1/N per second
        md += [f"Judged on this run's {min(short):.0f} s windows; the targets are meant for a full run's "
               f"20 s (the one wakeup that ends `idle` is already {1 / min(short):.2f}/s here).", ""]
    md += ["| target | measured | |", "|---|---|---|"]
    md += [f"| {w} | {m} | {v} |" for w, m, v in targets(rows, timer_core) + timerload.targets(timerload_rows)]
    if timer_core:
        md += ["", "## The timer core on the host (make bench-timers)", "",
               "Instructions, L1 misses (I1mr+D1mr+D1mw) and mispredicts (Bcm+Bim) per operation "
               "are callgrind's, with its cache and branch simulation; — where valgrind did not run.", "",
               "| workload | pending | ops | ns/op wheel / heap | instr/op wheel / heap | "
               "L1 misses/op wheel / heap | mispredicts/op wheel / heap |",
               "|---|---|---|---|---|---|---|"]

        def pair(r, what, spec):
            return f"{fmt(r.get('wheel_' + what), spec)} / {fmt(r.get('heap_' + what), spec)}"
        for r in timer_core:
            pending = f"{int(r['pending']):,}" if r["pending"] else ""
            md.append(f"| {r['workload']} | {pending} | {int(r['ops']):,} | {pair(r, 'ns_per_op', '.1f')} | "
                      f"{pair(r, 'instr_per_op', '.1f')} | {pair(r, 'l1_miss_per_op', '.2f')} | "
                      f"{pair(r, 'mispredict_per_op', '.2f')} |")
        md += [""] + [timeout_census_line(r) for r in timer_core if r.get("pending_mean") is not None]
    if pictures:
        md += ["", "## Pictures", ""] + [f"![{p}]({p})" for p in pictures]
    return "\n".join(md) + "\n"
