"""Sizes a reader can take in one sitting (docs/architecture.md, "Sizes"):
no C file of kernel/ or drivers/ over FILE_LINES lines unless its header
comment says why (a sentence starting "Longer than"), and no function
over FUNCTION_LINES lines.  Runs on the host only."""
import glob
import os
import re

from lullvm.qemu import ROOT

FILE_LINES = 400
FUNCTION_LINES = 60
SOURCES = sorted(os.path.relpath(p, ROOT) for pattern in ("kernel/**/*.c", "drivers/**/*.c")
                 for p in glob.glob(os.path.join(ROOT, pattern), recursive=True))


def header_comment(text):
    m = re.match(r"\s*/\*.*?\*/", text, re.S)
    return m.group(0) if m else ""


def functions(text):
    """[(name, first line, number of lines)] of the top-level function
    bodies: from a line that is `{` alone to the next line that is `}`."""
    found, name, start = [], None, None
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if line == "{" and start is None:
            start = n
            # The signature ends on the line before; its name is the last
            # identifier followed by '(' on the lines of the signature.
            sig = ""
            for back in range(n - 2, max(n - 8, -1), -1):
                sig = lines[back] + " " + sig
                if re.match(r"^[A-Za-z_]", lines[back]):
                    break
            names = re.findall(r"(\w+)\s*\(", sig)
            name = names[0] if names else "?"
        elif line == "}" and start is not None:
            found.append((name, start, n - start - 1))
            start = None
    return found


def test_the_function_finder_sees_functions():
    text = "static int f(int a,\n\tint b)\n{\n\treturn a;\n}\n\nvoid g(void)\n{\n}\n"
    assert functions(text) == [("f", 3, 1), ("g", 8, 0)]
    with open(os.path.join(ROOT, "kernel/main.c"), encoding="utf-8") as f:
        assert "kmain" in [name for name, _, _ in functions(f.read())]


def test_no_file_too_long_without_saying_why():
    long = []
    for path in SOURCES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        n = text.count("\n")
        if n > FILE_LINES and "Longer than" not in header_comment(text):
            long.append(f"{path}: {n} lines")
    assert not long, (f"over {FILE_LINES} lines, and the header does not say why "
                      f"(\"Longer than ...\"):\n" + "\n".join(long))


def test_no_function_too_long():
    long = []
    for path in SOURCES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for name, line, n in functions(f.read()):
                if n > FUNCTION_LINES:
                    long.append(f"{path}:{line}: {name} is {n} lines")
    assert not long, f"functions over {FUNCTION_LINES} lines:\n" + "\n".join(long)
