#!/usr/bin/python3
"""tools/lab.py — write a student copy of lull for one lab, and put it back.

A lab is the same tree with marked regions of the real source taken out
(docs/labs/README.md).  A region, in C:

        /* LAB alarm: BEGIN
         * A hint the student keeps: what to write, and where to look.
         */
        ... the reference solution ...
        /* LAB alarm: STUB
        return lab_not_implemented("alarm"), -ENOSYS;
           LAB alarm: END */

In this tree the stub is inside a comment and the solution compiles.  In a
student copy the solution is gone and the stub compiles instead:

        /* LAB alarm: BEGIN
         * A hint the student keeps: what to write, and where to look.
         */
        return lab_not_implemented("alarm"), -ENOSYS;
        /* LAB alarm: END */

Every other lab's regions stay as they are here, solved.

  lab.py make NAME DIR [--git]  write the student copy of lab NAME into DIR
                                (new or empty); --git: `git init` it with one
                                commit, none of lull's history
  lab.py fill DIR [--from ROOT] put ROOT's solutions (default: this tree) back
                                into DIR's regions, the student's code out
  lab.py list                   the labs and their regions, checked
  lab.py names                  the labs' names, on one line
  lab.py check                  exit 1 if any region is malformed
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The labs, in the order a course takes them (docs/labs/NAME.md each).
LABS = {
    "alarm":    "sleeping without spinning: sleepers on the timer wheel",
    "jiffies":  "counting ticks across the 32-bit wrap",
    "wheel":    "the cascading timer wheel: add, cancel, expiry, cascade, next expiry",
    "pit":      "a clock event driver for the 8254 PIT",
    "dyntick":  "the 2005 patch: skip ticks on idle entry, catch up on wakeup",
    "tickless": "one-shot programming for the earliest timer",
    "hz":       "how fast should HZ be? the article's question, measured",
}

# What each lab's grader runs of the labs before it, so that it cannot
# score full marks in their copies (docs/labs/README.md, "Grading another
# lab in your copy"): lab -> the labs whose stubs it meets.  The wheel's
# next-expiry query and the tickless lab's next_timer_on decide every
# stopped tick, and jiffies every timer; the other graders choose boot
# options and commands that keep clear of other labs' code.  In a lab's
# copy every lab not listed as building on it grades full marks
# (tests/system/test_labs.py).
BUILDS_ON = {
    "alarm":    [],
    "jiffies":  ["wheel"],
    "wheel":    ["jiffies"],
    "pit":      [],
    "dyntick":  ["jiffies", "wheel", "tickless"],
    "tickless": ["jiffies", "wheel", "dyntick"],
    "hz":       [],
}

BEGIN = re.compile(r"^(\s*)/\* LAB (\w+): BEGIN\b")
STUB = re.compile(r"^\s*/\* LAB (\w+): STUB\s*$")
END_HERE = re.compile(r"^\s*LAB (\w+): END \*/\s*$")
END_STUDENT = re.compile(r"^\s*/\* LAB (\w+): END \*/\s*$")
MARKER = re.compile(r"\bLAB \w+: (BEGIN|STUB|END)\b")


class LabError(Exception):
    pass


def parse(text, path):
    """Split a file into plain text and regions.

    Returns a list whose items are either a str (lines outside any region) or
    a dict {lab, hint, body, stub, end, student} where hint/body/stub are
    lists of lines: the BEGIN comment, the code between it and the STUB (or
    END) marker, and the stub's lines; `student` says which form it is in.
    """
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if not m:
            if MARKER.search(lines[i]):
                raise LabError(f"{path}:{i + 1}: a LAB marker outside a region: {lines[i].strip()}")
            out.append(lines[i])
            i += 1
            continue
        lab, start = m.group(2), i
        if lab not in LABS:
            raise LabError(f"{path}:{i + 1}: unknown lab '{lab}'")
        hint = []
        while True:                          # the BEGIN comment, to its */
            if i >= len(lines):
                raise LabError(f"{path}:{start + 1}: LAB {lab}: BEGIN comment never closed")
            hint.append(lines[i])
            i += 1
            if "*/" in hint[-1]:
                break
        body, stub = [], None
        while True:
            if i >= len(lines):
                raise LabError(f"{path}:{start + 1}: LAB {lab}: no END")
            line = lines[i]
            s, e = STUB.match(line), END_STUDENT.match(line)
            if s or e:
                if (s or e).group(1) != lab:
                    raise LabError(f"{path}:{i + 1}: LAB {lab} region closed as {(s or e).group(1)}")
                if e:                        # a student copy: no stub kept
                    out.append(dict(lab=lab, hint=hint, body=body, stub=None, end=[line], student=True))
                    i += 1
                    break
                stub_start, stub = i, []
                i += 1
                while True:
                    if i >= len(lines):
                        raise LabError(f"{path}:{stub_start + 1}: LAB {lab}: STUB without END")
                    m2 = END_HERE.match(lines[i])
                    if m2:
                        if m2.group(1) != lab:
                            raise LabError(f"{path}:{i + 1}: LAB {lab} stub closed as {m2.group(1)}")
                        break
                    if MARKER.search(lines[i]) or "*/" in lines[i]:
                        raise LabError(f"{path}:{i + 1}: LAB {lab}: stub lines may hold no marker or */")
                    stub.append(lines[i])
                    i += 1
                out.append(dict(lab=lab, hint=hint, body=body, stub=stub, stub_open=lines[stub_start],
                                end=[lines[i]], student=False))
                i += 1
                break
            if BEGIN.match(line) or MARKER.search(line):
                raise LabError(f"{path}:{i + 1}: LAB {lab}: a marker inside the region")
            body.append(line)
            i += 1
    return out


def student_end(region):
    indent = re.match(r"^(\s*)", region["hint"][0]).group(1)
    return f"{indent}/* LAB {region['lab']}: END */\n"


def render(parts, stub_lab=None):
    """Text of a parsed file, with lab `stub_lab`'s regions in student form
    (a lab's name, or a set of them)."""
    stubbed = {stub_lab} if isinstance(stub_lab, str) else set(stub_lab or ())
    text = []
    for p in parts:
        if isinstance(p, str):
            text.append(p)
        elif p["lab"] in stubbed and not p["student"]:
            text += p["hint"] + p["stub"] + [student_end(p)]
        elif p["student"]:
            text += p["hint"] + p["body"] + p["end"]
        else:
            text += p["hint"] + p["body"] + [p["stub_open"]] + p["stub"] + p["end"]
    return "".join(text)


def tracked_files(root):
    """The files of the tree: git's list where there is one, else a walk."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return [f for f in files if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "build", "__pycache__", ".pytest_cache")]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return files


# Wrong answers are patches over the reference solution: their context
# lines would hand a student the very code the copy stubs.
NOT_IN_A_COPY = "tests/labs/wrong/"


def copied_files(root):
    """What `make lab` copies: the tree but the wrong answers."""
    return [f for f in tracked_files(root) if not f.startswith(NOT_IN_A_COPY)]


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        return None


def regions(root):
    """{relative path: parsed parts} for every file holding a region."""
    found = {}
    for rel in sorted(tracked_files(root)):
        if not rel.endswith((".c", ".h")):
            continue                         # regions are in C sources only
        text = read_text(os.path.join(root, rel))
        if text is None or "LAB " not in text:
            continue
        parts = parse(text, rel)
        if any(isinstance(p, dict) for p in parts):
            found[rel] = parts
    return found


def cmd_make(lab, dest, git):
    if lab not in LABS:
        raise LabError(f"unknown lab '{lab}' (labs: {' '.join(LABS)})")
    if os.path.exists(dest) and os.listdir(dest):
        raise LabError(f"{dest} exists and is not empty")
    found = regions(ROOT)
    if not any(p["lab"] == lab for parts in found.values() for p in parts if isinstance(p, dict)) \
            and lab != "hz":
        raise LabError(f"lab {lab} has no region in this tree")
    os.makedirs(dest, exist_ok=True)
    for rel in copied_files(ROOT):
        src, dst = os.path.join(ROOT, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        text = render(found[rel], stub_lab=lab) if rel in found else None
        if text is not None and text != read_text(src):
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
            shutil.copymode(src, dst)
        else:
            shutil.copy2(src, dst)      # its time kept: a copied build stays valid
    with open(os.path.join(dest, ".lab"), "w") as f:
        f.write(lab + "\n")
    n = sum(1 for parts in found.values() for p in parts if isinstance(p, dict) and p["lab"] == lab)
    print(f"lab {lab}: student copy in {dest} ({n} region{'s' if n != 1 else ''} to write); "
          f"read docs/labs/{lab}.md, then `make grade`")
    if git:
        env = dict(os.environ, GIT_AUTHOR_NAME="lull lab", GIT_AUTHOR_EMAIL="lab@lull.invalid",
                   GIT_COMMITTER_NAME="lull lab", GIT_COMMITTER_EMAIL="lab@lull.invalid")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"lab {lab}: the handout"]):
            subprocess.run(["git", "-C", dest] + args, check=True, env=env)


def lab_of(dest):
    try:
        with open(os.path.join(dest, ".lab")) as f:
            return f.read().strip()
    except OSError:
        raise LabError(f"{dest} is not a student copy (no .lab file)")


def cmd_fill(dest, source):
    lab = lab_of(dest)
    ref = regions(source)
    for rel, parts in ref.items():
        want = [p for p in parts if isinstance(p, dict) and p["lab"] == lab]
        if not want:
            continue
        path = os.path.join(dest, rel)
        text = read_text(path)
        if text is None:
            raise LabError(f"{rel}: missing from {dest}")
        mine = parse(text, rel)
        have = [p for p in mine if isinstance(p, dict) and p["lab"] == lab]
        if len(have) != len(want):
            raise LabError(f"{rel}: {len(have)} region(s) of lab {lab} in {dest}, {len(want)} here")
        it = iter(want)
        filled = [next(it) if isinstance(p, dict) and p["lab"] == lab else p for p in mine]
        with open(path, "w", encoding="utf-8") as f:
            f.write(render(filled))
    print(f"lab {lab}: the reference solution is back in {dest}")


def cmd_list():
    found = regions(ROOT)
    for lab, what in LABS.items():
        where = [f"{rel}:{sum(1 for p in parts if isinstance(p, dict) and p['lab'] == lab)}"
                 for rel, parts in found.items()
                 if any(isinstance(p, dict) and p["lab"] == lab for p in parts)]
        print(f"{lab:9} {what}\n          regions: {', '.join(where) or '(none: a written lab)'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("lab")
    m.add_argument("dir")
    m.add_argument("--git", action="store_true")
    f = sub.add_parser("fill")
    f.add_argument("dir")
    f.add_argument("--from", dest="source", default=ROOT)
    sub.add_parser("list")
    sub.add_parser("names")
    sub.add_parser("check")
    a = ap.parse_args()
    try:
        if a.cmd == "make":
            cmd_make(a.lab, a.dir, a.git)
        elif a.cmd == "fill":
            cmd_fill(a.dir, a.source)
        elif a.cmd == "list":
            cmd_list()
        elif a.cmd == "names":
            print(" ".join(LABS))
        else:
            regions(ROOT)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
