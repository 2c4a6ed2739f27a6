"""`trace` as a trace a student opens in Perfetto (tools/trace2tef.py;
docs/tasks.md, "A trace to look at"): the file keeps the Trace Event
Format's rules (tests/lullvm/tef.py) and shows what ran: each CPU's tasks
slice by slice, its halts inside its idle task's slices, its timer
interrupts.  Under icount, one busy CPU at a time (docs/tasks.md, "QEMU's
icount and busy CPUs")."""
import json
import os
import subprocess
import sys

from lullvm import parse, tef
from lullvm.qemu import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import trace2tef  # noqa: E402


def test_the_recipe_writes_a_file_perfetto_opens(tmp_path):
    """The command docs/tasks.md gives, as a student types it."""
    out = tmp_path / "trace.json"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace2tef.py"), "--run",
                        "spawn hog; spawn media 2000 200 hrsleep 200; trace 1 tasks", "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "events on 1 CPU track(s); open it in https://ui.perfetto.dev" in p.stdout
    slices = tef.check(out.read_text())
    assert {"hog", "media", "shell"} <= set(slices[0]), sorted(set(slices[0]))


def test_each_cpu_shows_its_own_tasks_halts_and_ticks(run):
    """4 CPUs: a hog and the frame loop on CPU 1 (one busy CPU: under
    icount a second would starve), nothing on CPUs 2 and 3.  Every timer
    interrupt of the CSV is an instant on its CPU's track; an idle CPU's
    track is its idle task and halts alone."""
    r = run(["spawn hog cpu 1", "spawn media 2000 200 hrsleep 1000 cpu 1", "trace 1 tasks"], smp=4)
    doc = trace2tef.convert(r.log)
    slices = tef.check(json.dumps(doc))
    assert sorted(slices) == [0, 1, 2, 3], slices.keys()
    assert "hog" in slices[1] and "media" in slices[1], {c: sorted(set(s)) for c, s in slices.items()}
    for cpu in (2, 3):
        assert set(slices[cpu]) <= {"idle", "halt"} and "halt" in slices[cpu], sorted(set(slices[cpu]))
    rows = parse.trace(r.out("trace 1 tasks")).rows
    for cpu in range(4):
        irqs = sum(x.cpu == cpu and x.event == "timer_irq" for x in rows)
        instants = sum(e["ph"] == "i" and e["tid"] == cpu for e in doc["traceEvents"])
        assert instants == irqs, (cpu, instants, irqs)
    # The frame loop wakes every 2 ms: about 500 slices of it in the second.
    assert 450 <= slices[1].count("media") <= 520, slices[1].count("media")
