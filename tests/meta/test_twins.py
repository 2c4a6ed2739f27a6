"""Code shaped alike in two places (docs/architecture.md, "Twins"): where
two places in kernel/, drivers/ and include/ share six or more lines of the
same shape and stay apart, one of them says why, in a comment that starts
"Twin of NAME (WHERE)" or "Shaped like NAME (WHERE)".  This test keeps
those comments true: WHERE is a file of the tree (a path from the root, a
file name in the same folder, or "above"/"below" for the same file), and
NAME is an identifier that its code, comments aside, still has.  Runs on
the host only."""
import glob
import os
import re

from lullvm.qemu import ROOT

SOURCES = sorted(os.path.relpath(p, ROOT) for pattern in ("kernel/**/*.[ch]", "drivers/**/*.[ch]",
                                                           "include/**/*.h")
                 for p in glob.glob(os.path.join(ROOT, pattern), recursive=True))
TWIN = re.compile(r"(?:Twin of|Shaped like)\s+([^()]*?)\s*\(([^()]+)\)", re.S)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_of(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return COMMENT.sub(" ", f.read())


def names(phrase):
    """The identifiers a twin phrase names: those with an underscore, and
    the word after `struct`."""
    words = re.findall(r"\w+", phrase.replace("*", " "))
    found = [w for w in words if "_" in w and not w.startswith("_")]
    found += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "struct"]
    return found


def where(path, place):
    if place in ("above", "below"):
        return path
    if "/" not in place:
        return os.path.join(os.path.dirname(path), place)
    return place


def twins():
    """[(file, line, [names], target)] for every twin comment of the tree."""
    found = []
    for path in SOURCES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        for comment in re.finditer(r"/\*.*?\*/", text, re.S):
            for m in TWIN.finditer(comment.group(0)):
                line = text.count("\n", 0, comment.start() + m.start()) + 1
                found.append((path, line, names(m.group(1)), where(path, m.group(2).strip())))
    return found


def test_the_twin_finder_reads_both_forms():
    assert names("timer_callback_running and timer_del_sync") == [
        "timer_callback_running", "timer_del_sync"]
    assert names("struct trapframe's checks") == ["trapframe"]
    assert where("kernel/time/timer_level.c", "timer_cascade.c") == "kernel/time/timer_cascade.c"
    assert len(twins()) >= 10


def test_every_twin_comment_names_code_that_exists():
    wrong = []
    for path, line, idents, target in twins():
        if not idents:
            wrong.append(f"{path}:{line}: names no identifier")
            continue
        if not os.path.isfile(os.path.join(ROOT, target)):
            wrong.append(f"{path}:{line}: no file {target}")
            continue
        code = code_of(target)
        for name in idents:
            if not re.search(rf"\b{re.escape(name)}\b", code):
                wrong.append(f"{path}:{line}: {target} has no {name}")
    assert not wrong, "twin comments that point nowhere:\n" + "\n".join(wrong)
