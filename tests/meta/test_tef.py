"""tools/trace2tef.py on traces written by hand (nothing booted), and the
checker of the format's rules (tests/lullvm/tef.py) on documents that
break one each: it must reject every one."""
import json
import os
import sys

import pytest

from lullvm import tef

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import trace2tef  # noqa: E402

HEAD = ("# trace: mode=tickless device=lapic hz=250 cpus=2 events={n} dropped=0\n"
        "t_ns,cpu,event,cause,skip_ticks,sleep_ns,name\n")


def trace(*rows):
    return HEAD.format(n=len(rows)) + "".join(r + "\n" for r in rows)


def test_slices_halts_and_ticks_nest_on_each_cpu_track():
    doc = trace2tef.convert(trace(
        "1000000,0,switch,start,1,0,shell",
        "1000000,1,switch,start,0,0,idle1",
        "1000500,1,idle_exit,irq:lapic,0,0,",         # it halted before the trace began
        "1002000,0,switch,,2,0,hog",
        "1003000,1,idle_enter,hrtimer,1,4000000,sleep",
        "1004000,0,timer_irq,,0,0,lapic",
        "1005000,0,switch,,1,0,shell",
        "1006000,0,switch,,0,0,idle0",
        "1007000,0,idle_enter,device_max,17179,68719476720,",
    ))
    slices = tef.check(json.dumps(doc))
    assert slices == {0: ["shell", "hog", "shell", "idle", "halt"], 1: ["idle", "halt", "halt"]}
    ev = doc["traceEvents"]
    ticks = [e for e in ev if e["ph"] == "i"]
    assert len(ticks) == 1 and ticks[0]["ts"] == 4.0 and ticks[0]["tid"] == 0
    halt = next(e for e in ev if e["ph"] == "B" and e["name"] == "halt" and e["tid"] == 1 and e["ts"] == 3.0)
    assert halt["args"] == {"limit": "hrtimer", "skip_ticks": 1, "programmed_ms": 4.0}


def test_a_trace_without_events_is_refused():
    with pytest.raises(ValueError):
        trace2tef.convert(trace())


GOOD = [dict(ph="M", name="thread_name", pid=1, tid=0, args={"name": "CPU 0"}),
        dict(ph="B", name="hog", ts=1, pid=1, tid=0), dict(ph="i", name="tick", ts=2, pid=1, tid=0, s="t"),
        dict(ph="E", name="hog", ts=3, pid=1, tid=0)]


def broken(i, **change):
    ev = [dict(e) for e in GOOD]
    ev[i].update(change)
    return {"traceEvents": ev}


@pytest.mark.parametrize("doc", [
    "{not json",
    {"events": GOOD},
    broken(1, ph="Q"),
    broken(1, tid="0"),
    broken(2, ts=None),
    broken(3, ts=0.5),                              # back in time
    broken(3, name="media"),                        # closes what it did not open
    {"traceEvents": GOOD[:3]},                      # left open
    {"traceEvents": GOOD[:1] + [GOOD[3]]},          # closes nothing
    {"traceEvents": GOOD[1:]},                      # no thread_name
])
def test_the_checker_rejects_each_broken_rule(doc):
    assert tef.check({"traceEvents": GOOD}) == {0: ["hog"]}
    with pytest.raises(tef.TefError):
        tef.check(json.dumps(doc) if isinstance(doc, dict) else doc)
