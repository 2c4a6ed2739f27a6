#!/usr/bin/python3
"""tools/grade.py — score a lab, like xv6's `make grade` (docs/labs/README.md).

  grade.py [LAB[,LAB...]|all] [--json FILE] [--exitfirst]

LAB defaults to the one this tree was written for (its .lab file, from
`make lab`), else every lab.  Builds the kernel, runs the lab's graded
tests (tests/labs/test_LAB.py) and prints, for every lab in one format: a
table of its checks (check, points, result), then for each failed check
what was expected, what was seen and the kernel's own lines, then the
total.  Exits 0 only with full marks.  In the reference tree every lab
scores full marks; in a fresh student copy its own lab scores zero.
--exitfirst stops a lab at its first failed check (tests/labs/wrong/).

  grade.py --qemu "CMD; CMD" [--append OPTIONS]

prints the QEMU command line a grader boots those commands with (under
-icount, with the CMOS clock on the virtual clock, deadline= in guest
time), to run one graded boot by hand.
"""
import argparse
import shlex
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from lab import LABS  # noqa: E402

PYTHON = "/usr/bin/python3"


def grade(lab, exitfirst=False):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        env = dict(os.environ, LAB_RESULTS=f.name)
        p = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"] +
                           (["-x"] if exitfirst else []) +
                           [os.path.join("tests", "labs", f"test_{lab}.py")],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        try:
            with open(f.name) as r:
                results = json.load(r)
        except (OSError, ValueError):
            results = []
    if not results:
        print(p.stdout[-3000:] + p.stderr[-2000:])
        results = [{"test": f"test_{lab}.py", "points": 1, "passed": False,
                    "why": "the graded tests did not run (output above)"}]
    return results


def report(lab, results):
    """Print one lab's table and its failures' details; (points, out of)."""
    width = max([len(r["test"]) for r in results] + [len("check")])
    print(f"  {'check':<{width}}  points  result")
    got = total = 0
    for r in results:
        mark = r["points"] if r["passed"] else 0
        got += mark
        total += r["points"]
        points = f"{mark}/{r['points']}"
        print(f"  {r['test']:<{width}}  {points:>6}  {'ok' if r['passed'] else 'FAILED'}")
    points = f"{got}/{total}"
    print(f"  {'total':<{width}}  {points:>6}")
    for r in results:
        if not r["passed"]:
            print(f"-- {lab}: {r['test']} failed:")
            for line in (r["why"] or "(no message)").split("\n"):
                print(f"   {line}")
    return got, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lab", nargs="?")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--exitfirst", action="store_true", help="stop each lab at its first failed check")
    ap.add_argument("--qemu", metavar="COMMANDS", help="print the graders' QEMU command line for COMMANDS")
    ap.add_argument("--append", default="", help="with --qemu: more boot options")
    a = ap.parse_args()
    if a.qemu is not None:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from lullvm.labs import boot_command
        cmds = [c.strip() for c in a.qemu.split(";") if c.strip()]
        print(" ".join(shlex.quote(w) for w in boot_command(cmds, a.append,
                                                              elf=os.path.relpath(os.path.join(ROOT, "build", "lull.elf")))))
        return 0
    lab = a.lab
    if not lab:
        try:
            with open(os.path.join(ROOT, ".lab")) as f:
                lab = f.read().strip()
        except OSError:
            lab = "all"
    labs = list(LABS) if lab == "all" else lab.split(",")
    for l in labs:
        if l not in LABS:
            print(f"error: unknown lab '{l}' (labs: {' '.join(LABS)})")
            return 2

    mk = subprocess.run(["make", "--no-print-directory", "-s", f"-j{os.cpu_count() or 1}", "all"], cwd=ROOT,
                        capture_output=True, text=True)
    if mk.returncode != 0:
        print(mk.stdout[-3000:] + mk.stderr[-3000:])
        print("grade: the kernel does not build; score 0")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"score": 0, "total": None, "labs": {}, "build": "failed"}, f, indent=1)
        return 1

    total = got = 0
    everything = {}
    for l in labs:
        print(f"== lab {l}: {LABS[l]}")
        results = grade(l, a.exitfirst)
        everything[l] = results
        lab_got, lab_total = report(l, results)
        got += lab_got
        total += lab_total
        answers = f"answers-{l}.txt"
        if not os.path.exists(os.path.join(ROOT, answers)):
            print(f"{l}: reminder: answer docs/labs/{l}.md's questions in {answers}")
    print(f"Score: {got}/{total}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"score": got, "total": total, "labs": everything}, f, indent=1)
    return 0 if got == total else 1


if __name__ == "__main__":
    sys.exit(main())
