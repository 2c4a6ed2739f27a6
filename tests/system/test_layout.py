"""Floors (STYLE.md 16): the console and the interrupt dispatcher sit below
the platform drivers and never call or include them by name; the drivers
hand them what they need (console_add_sink, irq_set_chip).  Checked on the
sources: no circle of calls between kernel/console.c, kernel/arch/irq.c and
drivers/platform/*.c, and neither lower file includes a drivers/ header.
Runs on the host only."""
import glob
import os
import re

from conftest import ROOT

LOWER = ["kernel/console.c", "kernel/arch/irq.c"]
FILES = LOWER + sorted(os.path.relpath(p, ROOT)
                       for p in glob.glob(os.path.join(ROOT, "drivers/platform/*.c")))

# A function definition that other files can call: at the start of a line,
# not static, and not a declaration (a line ending in ';').
EXPORTED_DEF = re.compile(r"^(?!static\b|typedef\b|struct\b|enum\b|extern\b)"
                          r"[A-Za-z_][\w \t\*]*?\b(\w+)\s*\((?!.*;$).*$", re.M)


def source(path):
    """The file without comments or string literals (they name functions too)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)      # '"' is not a string
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def call_graph():
    """{file: set of files whose exported functions it names}."""
    texts = {f: source(f) for f in FILES}
    exported = {f: set(EXPORTED_DEF.findall(t)) - {"if", "for", "while", "switch", "return"}
                for f, t in texts.items()}
    graph = {}
    for f, t in texts.items():
        graph[f] = {g for g, names in exported.items() if g != f and
                    any(re.search(rf"\b{n}\b", t) for n in names)}
    return graph


def find_circle(graph):
    """A list of files that call each other round in a circle, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_console_irq_and_platform_drivers_call_in_no_circle():
    graph = call_graph()
    circle = find_circle(graph)
    assert circle is None, "call circle: " + " -> ".join(circle)
    for lower in LOWER:
        drivers = sorted(g for g in graph[lower] if g.startswith("drivers/"))
        assert not drivers, f"{lower} calls a driver by name: {drivers}"


def test_console_and_irq_include_no_driver_header():
    for lower in LOWER:
        with open(os.path.join(ROOT, lower), encoding="utf-8") as f:
            includes = re.findall(r'^#include "([^"]+)"', f.read(), re.M)
        assert not [i for i in includes if i.startswith(("drivers/", "shell/"))], (lower, includes)


def test_the_graph_sees_what_drivers_call():
    """The check is not blind: drivers do call down into both files."""
    graph = call_graph()
    assert "kernel/console.c" in graph["drivers/platform/uart16550.c"]
    assert "kernel/arch/irq.c" in graph["drivers/platform/ps2_keyboard.c"]
    assert "kernel/arch/irq.c" in graph["drivers/platform/pic8259.c"]
