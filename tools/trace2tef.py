#!/usr/bin/python3
"""tools/trace2tef.py — lull's `trace` as a trace Perfetto and chrome://tracing
open (docs/tasks.md, "A trace to look at").

  trace2tef.py LOG [-o trace.json]
  trace2tef.py --run "spawn hog; spawn media 2000 200 hrsleep; trace 1 tasks" [--smp N] [-o trace.json]

LOG is a serial log with one `trace SECONDS tasks` in it (what `make run`
printed, saved); --run boots lull under QEMU's -icount with those commands
instead (the same run every time) and converts what its `trace` printed.
A trace without `tasks` has no switches: each track is then its halts and
interrupts, inside one slice named "idle".

The output is the Trace Event Format (JSON, "traceEvents"): one process,
lull, with one track per CPU.  On each track, the task the CPU ran, slice by
slice, from one switch to the next (the idle task as "idle"); inside the
idle task's slices, each halt ("halt", with the limit that set its length,
the ticks it skipped and what woke it); and an instant event at each timer
interrupt.  Timestamps are microseconds from the start of the trace.
"""
import argparse
import json
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lullvm import parse  # noqa: E402

PID = 1


def _us(t_ns, start_ns):
    return (t_ns - start_ns) / 1000.0


def track(rows, cpu, start_ns, end_ns):
    """The events of one CPU's track, in time order: B/E pairs that nest
    (a halt inside its idle task's slice) and instants."""
    out = []
    task = halt = None              # the open slices' names

    def begin(name, t, args=None):
        out.append(dict(ph="B", name=name, ts=_us(t, start_ns), pid=PID, tid=cpu, args=args or {}))

    def end(name, t, args=None):
        out.append(dict(ph="E", name=name, ts=_us(t, start_ns), pid=PID, tid=cpu, args=args or {}))

    mine = sorted((r for r in rows if r.cpu == cpu), key=lambda r: r.t_ns)    # stable: buffer order at ties
    for r in mine:
        if r.event == "switch":
            if halt:
                end(halt, r.t_ns)
                halt = None
            if task:
                end(task, r.t_ns)
            task = "idle" if r.skip_ticks == 0 else r.name     # task 0: a CPU's idle task
            begin(task, r.t_ns, {"task": r.skip_ticks})
        elif r.event == "idle_enter":
            if not task:
                task = "idle"
                begin(task, start_ns)
            if halt:
                end(halt, r.t_ns)
            halt = "halt"
            begin(halt, r.t_ns, {"limit": r.cause, "skip_ticks": r.skip_ticks,
                                 "programmed_ms": r.sleep_ns / 1e6})
        elif r.event == "idle_exit":
            if not halt:
                # It halted before recording started.
                if not task:
                    task = "idle"
                    begin(task, start_ns)
                halt = "halt"
                begin(halt, start_ns)
            end(halt, r.t_ns, {"woken_by": r.cause})
            halt = None
        elif r.event == "timer_irq":
            out.append(dict(ph="i", s="t", name="timer irq", ts=_us(r.t_ns, start_ns), pid=PID, tid=cpu,
                            args={"device": r.name}))
    if halt:
        end(halt, end_ns)
    if task:
        end(task, end_ns)
    return out


def convert(text):
    """The Trace Event Format document (a dict) of the `trace` in text."""
    tr = parse.trace(text)
    if not tr.rows:
        raise ValueError("the trace has no events")
    start_ns = min(r.t_ns for r in tr.rows)
    end_ns = max(r.t_ns for r in tr.rows)
    events = [dict(ph="M", name="process_name", pid=PID, tid=0, args={"name": "lull"})]
    for cpu in range(tr.cpus):
        events.append(dict(ph="M", name="thread_name", pid=PID, tid=cpu, args={"name": f"CPU {cpu}"}))
        events.append(dict(ph="M", name="thread_sort_index", pid=PID, tid=cpu, args={"sort_index": cpu}))
    for cpu in range(tr.cpus):
        events += track(tr.rows, cpu, start_ns, end_ns)
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"tick_mode": tr.mode, "tick_device": tr.device, "hz": tr.hz, "cpus": tr.cpus,
                          "events": tr.events, "dropped": tr.dropped}}


def run_lull(commands, smp):
    """Boot lull under icount with `commands`; its serial log."""
    from lullvm.qemu import assert_finished, run_script
    r = run_script(commands, smp=smp, timeout=300)
    assert_finished(r, 300)
    return r.log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", nargs="?", help="a serial log with one `trace` in it")
    ap.add_argument("--run", metavar="COMMANDS", help="boot lull with these shell commands (';' between)")
    ap.add_argument("--smp", type=int, default=1, help="with --run: CPUs (default 1)")
    ap.add_argument("-o", "--out", default="trace.json", help="the JSON file to write (default trace.json)")
    a = ap.parse_args()
    if bool(a.log) == bool(a.run):
        ap.error("give a LOG or --run COMMANDS")
    if a.run:
        commands = [c.strip() for c in a.run.split(";") if c.strip()]
        if not any(c.startswith("trace ") for c in commands):
            ap.error("--run: the commands must include a `trace SECONDS tasks`")
        text = run_lull(commands, a.smp)
    else:
        with open(a.log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    try:
        doc = convert(text)
    except (ValueError, parse.ParseError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with open(a.out, "w") as f:
        json.dump(doc, f)
    n = sum(e["ph"] != "M" for e in doc["traceEvents"])
    print(f"{a.out}: {n} events on {doc['otherData']['cpus']} CPU track(s); open it in "
          f"https://ui.perfetto.dev (Open trace file) or chrome://tracing"
          + (f" (the run: {shlex.quote(a.run)})" if a.run else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
