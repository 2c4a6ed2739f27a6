"""Floors (docs/architecture.md): every include goes to the file's own
floor or one below it, by the table in that doc; no file reaches itself
again through the functions it calls; no header circle.  And the first
case of it: the console and the interrupt dispatcher sit below the
platform drivers and never call or include them by name; the drivers hand
them what they need (console_add_sink, irq_set_chip).  Checked on the
sources; runs on the host only."""
import glob
import os
import re

from lullvm.qemu import ROOT

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


def call_graph(files=None, calls_only=False):
    """{file: set of files whose exported functions it names}.  With
    calls_only, a name counts only where it is called (`name(`): a function
    handed over as a pointer is the allowed direction, and a struct field
    of the same name as a function is not a call."""
    texts = {f: source(f) for f in (files or FILES)}
    exported = {f: set(EXPORTED_DEF.findall(t)) - {"if", "for", "while", "switch", "return"}
                for f, t in texts.items()}
    after = r"\s*\(" if calls_only else r"\b"
    graph = {}
    for f, t in texts.items():
        graph[f] = {g for g, names in exported.items() if g != f and
                    any(re.search(rf"(?<![.>\w]){n}{after}", t) for n in names)}
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


ALL_C = sorted(os.path.relpath(p, ROOT) for pattern in ("kernel/**/*.c", "drivers/**/*.c")
               for p in glob.glob(os.path.join(ROOT, pattern), recursive=True))


def test_no_call_circle_between_any_two_files():
    """Every floor calls only down (or hands a function over): no file of
    kernel/ or drivers/ reaches itself again through the calls it makes."""
    graph = call_graph(ALL_C, calls_only=True)
    circle = find_circle(graph)
    assert circle is None, "call circle: " + " -> ".join(circle)
    # Not blind either: the shell calls the tick, the tick the clock events.
    assert "kernel/time/tick_switch.c" in graph["kernel/shell/cmd_tick.c"]
    assert "kernel/time/clockevents.c" in graph["kernel/time/tick.c"]


def test_no_include_circle_between_headers():
    headers = sorted(os.path.relpath(p, os.path.join(ROOT, "include"))
                     for p in glob.glob(os.path.join(ROOT, "include", "**", "*.h"), recursive=True))
    graph = {}
    for h in headers:
        with open(os.path.join(ROOT, "include", h), encoding="utf-8") as f:
            incs = re.findall(r'^#include "([^"]+)"', f.read(), re.M)
        here = os.path.dirname(h)
        graph[h] = {os.path.normpath(os.path.join(here, i)) if i.startswith("..") else i
                    for i in incs} & set(headers)
    circle = find_circle(graph)
    assert circle is None, "include circle: " + " -> ".join(circle)


# ------------------------------------------------------------ the floors

ARCHITECTURE = os.path.join(ROOT, "docs", "architecture.md")
FLOOR_ROW = re.compile(r"^\| *([a-z ]+?) *\| *((?:`[^`]+` *)+)\| *([a-z ,]+?) *\|$", re.M)


def floor_table():
    """docs/architecture.md's table: [(floor, [paths], {floors it may include})]."""
    with open(ARCHITECTURE, encoding="utf-8") as f:
        text = f.read()
    rows = [(name, re.findall(r"`([^`]+)`", paths), {s.strip() for s in may.split(",")})
            for name, paths, may in FLOOR_ROW.findall(text)]
    return rows


def floor_of(path, rows):
    """The floor whose longest path matches `path` (a folder ends in /), or None."""
    best, length = None, -1
    for name, paths, _ in rows:
        for p in paths:
            hit = path.startswith(p) if p.endswith("/") else path == p
            if hit and len(p) > length:
                best, length = name, len(p)
    return best


def includes_of(path):
    """[(line number, the included file as a tree path)] of `path`'s quoted
    includes that name a file of the tree (include/X, or X beside it)."""
    found = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            for cand in ("include/" + m.group(1),
                         os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))):
                if os.path.exists(os.path.join(ROOT, cand)):
                    found.append((n, cand))
                    break
    return found


TREE = sorted(os.path.relpath(p, ROOT)
              for pattern in ("kernel/**/*.[ch]", "drivers/**/*.[ch]", "include/**/*.h")
              for p in glob.glob(os.path.join(ROOT, pattern), recursive=True))


def test_the_floor_table_is_read():
    """Not blind: the table has its floors, and each may include its own."""
    rows = floor_table()
    names = [r[0] for r in rows]
    for floor in ("lib", "sync", "time", "arch", "core", "drivers", "platform", "shell", "main"):
        assert floor in names, (floor, names)
    for name, paths, may in rows:
        assert paths and name in may, (name, paths, may)
    assert floor_of("kernel/time/tick.c", rows) == "time"
    assert floor_of("include/arch/irqflags.h", rows) == "sync"
    assert floor_of("include/arch/smp.h", rows) == "arch headers"


def test_every_file_has_a_floor():
    rows = floor_table()
    lost = [p for p in TREE if floor_of(p, rows) is None]
    assert not lost, f"no row of docs/architecture.md's table names these: {lost}"


def test_every_include_goes_down_or_across():
    """Each #include goes to the file's own floor or one the table allows."""
    rows = floor_table()
    allowed = {name: may for name, _, may in rows}
    wrong = []
    for path in TREE:
        mine = floor_of(path, rows)
        for n, inc in includes_of(path):
            theirs = floor_of(inc, rows)
            if mine and theirs and theirs not in allowed[mine]:
                wrong.append(f"{path}:{n}: {mine} includes {inc} ({theirs})")
    assert not wrong, "includes against docs/architecture.md's table:\n" + "\n".join(wrong)


def test_the_cpu_knows_nothing_of_timers():
    """include/arch/ includes no header of the time core."""
    wrong = [f"{p}:{n}: {inc}" for p in TREE if p.startswith("include/arch/")
             for n, inc in includes_of(p) if inc.startswith("include/time/")]
    assert not wrong, wrong


# ------------------------------------------------------------ one seam

SEAM = {"kernel/time/inject.c", "kernel/time/inject_idle.c", "include/time/inject.h"}


def test_injection_only_through_the_seam():
    """Faults reach a device only through the seam (kernel/time/inject*.c,
    wrapping its ops) and the shell that drives it: no driver, nor the
    idle loop, nor the interrupt path, nor the rest of the time core names
    anything of injection in its code (comments may say where it went)."""
    wrong = []
    for path in ALL_C + sorted(os.path.relpath(p, ROOT) for p in
                               glob.glob(os.path.join(ROOT, "include", "**", "*.h"), recursive=True)):
        if path in SEAM or path.startswith(("kernel/shell/", "include/shell/")):
            continue
        for name in sorted(set(re.findall(r"\w*inject\w*", source(path), re.I))):
            wrong.append(f"{path}: {name}")
    assert not wrong, "injection outside the seam:\n" + "\n".join(wrong)
    # Not blind: the seam's own file is seen to hold it.
    assert re.search(r"\binject_clockevent_follow\b", source("kernel/time/inject.c"))
