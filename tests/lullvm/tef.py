"""The Trace Event Format's rules, as a checker for what tools/trace2tef.py
writes (tests/system/test_trace_tef.py, tests/meta/test_tef.py).

The rules checked (the format's document, "Trace Event Format", and what
Perfetto's importer requires of it): the file is JSON with a "traceEvents"
list; every event has a phase, a pid and a tid, and every event but
metadata ("M") a numeric timestamp; on each track (pid, tid) the
timestamps never go back in file order; "B" and "E" events pair up on
their track as a stack, each "E" closing the last open "B" of the same
name, and none is left open; each track has a thread_name."""
import json

PHASES = {"B", "E", "i", "M", "X"}


class TefError(Exception):
    pass


def check(doc):
    """Raise TefError naming the first broken rule; return {tid: [the names
    of its B events, in order]}."""
    if isinstance(doc, (str, bytes)):
        try:
            doc = json.loads(doc)
        except ValueError as e:
            raise TefError(f"not JSON: {e}")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        raise TefError("no traceEvents list")
    last, stacks, names, slices = {}, {}, set(), {}
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") not in PHASES:
            raise TefError(f"event {i}: no known phase: {e!r}")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            raise TefError(f"event {i}: no pid and tid: {e!r}")
        key = (e["pid"], e["tid"])
        if e["ph"] == "M":
            if e.get("name") == "thread_name":
                names.add(key)
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            raise TefError(f"event {i}: no timestamp: {e!r}")
        if ts < last.get(key, 0):
            raise TefError(f"event {i}: track {key} goes back in time, {last[key]} -> {ts}")
        last[key] = ts
        stack = stacks.setdefault(key, [])
        if e["ph"] == "B":
            stack.append(e.get("name"))
            slices.setdefault(e["tid"], []).append(e.get("name"))
        elif e["ph"] == "E":
            if not stack:
                raise TefError(f"event {i}: E with nothing open on track {key}")
            if e.get("name") is not None and e["name"] != stack[-1]:
                raise TefError(f"event {i}: E of {e['name']!r} closes {stack[-1]!r} on track {key}")
            stack.pop()
    for key, stack in stacks.items():
        if stack:
            raise TefError(f"track {key}: left open: {stack}")
        if key not in names:
            raise TefError(f"track {key}: no thread_name")
    return slices
