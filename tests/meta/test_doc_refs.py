"""Pointers into the docs stay true (docs/architecture.md, "Twins", and the
house rule that comments cite only what exists): every docs/X.md that the
code, the tests, the tools or the bench name is a file of the tree, and
every section they name with it (`docs/X.md, "Heading"`) is a heading of
that file.  Runs on the host only."""
import glob
import os
import re

from lullvm.qemu import ROOT

SCANNED = ("kernel/**/*.[ch]", "drivers/**/*.[ch]", "include/**/*.h", "boot/**/*",
           "tests/**/*.py", "tests/**/*.c", "tools/**/*", "bench/**/*", "Makefile")
# docs/X.md, optionally followed by a section name in quotes: `, "H"`,
# ` "H"` or ` ("H")`.  A path component in capitals is a placeholder.
REF = re.compile(r'(docs/[\w./-]+?\.md)(?:,?\s+\(?"([^"\n]{3,80})")?')


def files():
    seen = set()
    for pattern in SCANNED:
        for p in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if os.path.isfile(p) and p not in seen and not p.endswith(os.path.basename(__file__)):
                seen.add(p)
                yield os.path.relpath(p, ROOT)


def headings(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        return [re.sub(r"^#+\s*", "", line).strip() for line in f if line.startswith("#")]


def refs():
    """[(file, line, doc, section or None)]"""
    found = []
    for path in files():
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        for m in REF.finditer(text):
            if re.search(r"/[A-Z]+\.md$", m.group(1)):
                continue
            found.append((path, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)))
    return found


def test_the_finder_sees_sections():
    assert REF.match('docs/robustness.md, "QEMU\'s icount race"').group(2) == "QEMU's icount race"
    assert REF.match('docs/boot.md ("Line editing")').group(2) == "Line editing"
    assert sum(1 for r in refs() if r[3]) >= 3


def test_every_doc_and_section_named_exists():
    wrong = []
    for path, line, doc, section in refs():
        if not os.path.isfile(os.path.join(ROOT, doc)):
            wrong.append(f"{path}:{line}: no file {doc}")
        elif section and not any(section == h or h.startswith(section) for h in headings(doc)):
            wrong.append(f"{path}:{line}: {doc} has no section \"{section}\"")
    assert not wrong, "pointers into the docs that point nowhere:\n" + "\n".join(wrong)
