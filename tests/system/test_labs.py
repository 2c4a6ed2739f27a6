"""The course labs (docs/labs/): each lab's student copy (`make lab`)
builds under -Werror, says `lab NAME: not implemented`, and scores zero on
its own tests without hanging; and each lab scores full marks with every
lab it does not build on (tools/lab.py's BUILDS_ON) stubbed at once.  With the reference solution put back (tools/lab.py fill) a copy
is this tree again, byte for byte, so it scores what this tree scores."""
import filecmp
import os
import subprocess
import sys

import pytest

from lullvm.labs import copy_build, copy_tree, grade
from lullvm.qemu import ROOT, run_script

sys.path.insert(0, os.path.join(ROOT, "tools"))
from lab import BUILDS_ON, LABS, NOT_IN_A_COPY, copied_files, regions, render, tracked_files  # noqa: E402

PYTHON = "/usr/bin/python3"
# A command that reaches each lab's code in a booted kernel.
REACH = {"alarm": "alarm single", "jiffies": "uptime", "wheel": "alarm order",
         "pit": "clockevent pit", "dyntick": "tick dyntick; idle 1", "tickless": "idle 1",
         "hz": "power 1"}


def test_make_lab_needs_both_names(tmp_path):
    p = subprocess.run(["make", "--no-print-directory", "lab", "LAB=alarm"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout.startswith("usage: make lab LAB=NAME DIR=PATH")
    p = subprocess.run(["make", "--no-print-directory", "lab", "LAB=nosuch", f"DIR={tmp_path}/x"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode != 0 and "error: unknown lab 'nosuch'" in p.stderr


@pytest.mark.parametrize("lab", list(LABS))
def test_student_copy_scores_zero_then_is_this_tree_again(tmp_path, lab):
    copy = str(tmp_path / lab)
    p = subprocess.run(["make", "--no-print-directory", "lab", f"LAB={lab}", f"DIR={copy}", "GIT=1"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    log = subprocess.run(["git", "-C", copy, "log", "--oneline"], capture_output=True, text=True).stdout
    assert len(log.splitlines()) == 1, "a fresh history of one commit, none of lull's"
    copy_build(copy)        # this tree's objects, for speed: make rebuilds what the lab changed

    p, r = grade(copy)                  # its .lab names the lab
    assert list(r["labs"]) == [lab], r
    assert r["score"] == 0 and r["total"] > 0 and p.returncode == 1, p.stdout[-4000:]
    assert f"reminder: answer docs/labs/{lab}.md's questions in answers-{lab}.txt" in p.stdout

    boot = run_script(REACH[lab].split("; "), elf=os.path.join(copy, "build", "lull.elf"), timeout=120)
    assert f"lab {lab}: not implemented" in boot.log, boot.tail(3000)
    assert "run: done, powering off" in boot.log, "the stubbed kernel hung or crashed:\n" + boot.tail(3000)

    p = subprocess.run([PYTHON, os.path.join(ROOT, "tools", "lab.py"), "fill", copy],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(os.path.join(copy, NOT_IN_A_COPY)), \
        "the copy holds the wrong answers, patches over the reference solution"
    differ = [f for f in copied_files(ROOT)
              if not filecmp.cmp(os.path.join(ROOT, f), os.path.join(copy, f), shallow=False)]
    assert differ == [], f"with the solution back, these still differ: {differ}"


@pytest.mark.parametrize("lab", list(LABS))
def test_the_lab_grades_full_with_every_other_lab_stubbed(tmp_path, lab):
    """A lab's grade depends on no other lab's code but the labs it builds
    on (BUILDS_ON): in this tree with every other lab's regions stubbed at
    once, it still scores full marks.  So in any one lab's copy it does too
    (there only that lab is stubbed), and the reference scores full."""
    tree = str(tmp_path / "tree")
    copy_tree(tree, tracked_files(ROOT))
    stub = set(LABS) - {lab} - set(BUILDS_ON[lab])
    for rel, parts in regions(ROOT).items():
        text = render(parts, stub_lab=stub)
        with open(os.path.join(tree, rel), encoding="utf-8") as f:
            if f.read() == text:
                continue
        with open(os.path.join(tree, rel), "w", encoding="utf-8") as f:
            f.write(text)
    p, r = grade(tree, lab)
    lost = [f"{t['test']}: {t['why']}" for t in r["labs"].get(lab, []) if not t["passed"]]
    assert r["score"] == r["total"] and not lost, \
        f"{lab} with {sorted(stub)} stubbed loses points:\n" + "\n".join(lost) + "\n" + p.stdout[-3000:]
