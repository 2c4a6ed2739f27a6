#!/usr/bin/python3
"""tools/slice_picture.py — the picture of time slices and a preemption in
docs/tasks.md (docs/img/tasks-slice.png), drawn from a trace lull makes.

  slice_picture.py [-o docs/img/tasks-slice.png]

Boots lull under -icount (the same trace every run) at HZ=250 with 12 ms
slices, two hogs and `interactive` woken every 10 ms, records `trace 1
tasks`, and draws 40 ms of CPU 0: a bar for each stretch a task ran, a
line at each timer interrupt.  Needs matplotlib (python3-matplotlib).
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lullvm import parse  # noqa: E402
from lullvm.qemu import assert_finished, run_script  # noqa: E402

COMMANDS = ["slice 12", "spawn hog", "spawn hog", "spawn interactive 10 200", "sleep 105", "trace 1 tasks"]
WINDOW_MS = 40


def runs(rows):
    """[(task id, name, start ns, end ns)] of CPU 0, and its timer interrupts."""
    mine = [r for r in rows if r.cpu == 0]
    out, current = [], None
    for r in mine:
        if r.event != "switch":
            continue
        if current:
            out.append((current[0], current[1], current[2], r.t_ns))
        current = (r.skip_ticks, r.name, r.t_ns)
    return out, [r.t_ns for r in mine if r.event == "timer_irq"]


def draw(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    spans, ticks = runs(rows)
    hogs = sorted({i for i, n, _, _ in spans if n == "hog"})
    # The window starts a little before the first time the CPU passes from
    # one hog to the other after a tick has come.
    last_hog, start = None, None
    for i, n, s, _ in spans:
        if n != "hog":
            continue
        if last_hog is not None and i != last_hog and any(t <= s for t in ticks):
            start = s
            break
        last_hog = i
    t0 = max(t for t in ticks if t <= start) - 2_000_000
    t1 = t0 + WINDOW_MS * 1_000_000
    lanes = [(i, f"hog (task {i})") for i in hogs] + [(None, "interactive"), (None, "shell")]
    fig, ax = plt.subplots(figsize=(10, 3.2))
    for k, (tid, label) in enumerate(lanes):
        for i, n, s, e in spans:
            if (tid is not None and i == tid) or (tid is None and n == label):
                if e > t0 and s < t1:
                    ax.broken_barh([((s - t0) / 1e6, max((e - s) / 1e6, 0.08))], (k - 0.35, 0.7),
                                   color=["#4c72b0", "#55a868", "#c44e52", "#8172b2"][k])
    for t in ticks:
        if t0 <= t <= t1:
            ax.axvline((t - t0) / 1e6, color="grey", lw=0.6, ls=":")
    ax.set_yticks(range(len(lanes)), [label for _, label in lanes])
    ax.set_xlim(0, WINDOW_MS)
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("ms (dotted: a timer interrupt; every 4 ms the tick, at HZ=250)")
    ax.set_title("CPU 0: two hogs in 12 ms slices, each ended by the tick; interactive, woken by its "
                 "hrtimer, preempts", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "docs", "img", "tasks-slice.png"))
    a = ap.parse_args()
    r = run_script(COMMANDS, append="hz=250", timeout=300)
    assert_finished(r, 300)
    draw(parse.trace(r.out("trace 1 tasks")).rows, a.out)
    print(f"{a.out}: {WINDOW_MS} ms of CPU 0 ({'; '.join(COMMANDS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
