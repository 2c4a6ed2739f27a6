"""Graders that reject wrong code (docs/labs/README.md, "Wrong answers the
graders reject"): beside each lab's grader, tests/labs/wrong/LAB/ keeps
wrong solutions, each a small patch over the reference solution with two
header lines:

    What: <the mistake, in one line>
    Names: <a regular expression the failing check's message must match>

For every lab, this applies each patch to a copy of the tree, grades the
lab there (stopping at the first failed check) and fails unless the
patch scores below full marks with a failure whose message names the
mistake's place (`Names:`).  A wrong answer a student finds that passes
belongs here."""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

from lullvm.labs import PYTHON, copy_tree
from lullvm.qemu import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from lab import LABS, tracked_files  # noqa: E402

WRONG = os.path.join(ROOT, "tests", "labs", "wrong")
MIN_PER_LAB = 5


def wrong_answers(lab):
    """[(file, what, names regex)] of tests/labs/wrong/LAB/*.patch."""
    found = []
    for path in sorted(glob.glob(os.path.join(WRONG, lab, "*.patch"))):
        with open(path, encoding="utf-8") as f:
            head = f.read().split("\ndiff --git", 1)[0]
        what = re.search(r"^What: (.+)$", head, re.M)
        names = re.search(r"^Names: (.+)$", head, re.M)
        assert what and names, f"{path}: needs a 'What:' and a 'Names:' line before the diff"
        found.append((path, what.group(1), names.group(1)))
    return found


def test_every_lab_keeps_wrong_answers():
    if not os.path.isdir(WRONG):
        pytest.skip("a student copy holds no wrong answers (tools/lab.py NOT_IN_A_COPY)")
    few = {lab: len(wrong_answers(lab)) for lab in LABS if len(wrong_answers(lab)) < MIN_PER_LAB}
    assert not few, f"labs with fewer than {MIN_PER_LAB} wrong answers kept: {few}"


def grade_each(tree, lab, patches, timeout):
    """lullvm.labs.grade_each in `tree`: {patch: results or {"apply": error}}."""
    out = os.path.join(os.path.dirname(tree), "wrong.json")
    p = subprocess.run([PYTHON, "-c", "import sys; sys.path.insert(0, 'tests'); "
                        "from lullvm.labs import grade_each; grade_each(sys.argv[1], sys.argv[3:], sys.argv[2])",
                        lab, out] + patches, cwd=tree, capture_output=True, text=True, timeout=timeout)
    try:
        with open(out) as f:
            return json.load(f)
    except (OSError, ValueError):
        pytest.fail(f"grading the wrong answers did not finish:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")


@pytest.mark.parametrize("lab", list(LABS))
def test_wrong_answers_score_below_full_marks_and_say_where(tmp_path, lab):
    answers = wrong_answers(lab)
    if not answers:
        pytest.skip(f"no wrong answers kept for {lab} yet")
    tree = str(tmp_path / "tree")
    copy_tree(tree, tracked_files(ROOT))
    graded = grade_each(tree, lab, [patch for patch, _, _ in answers], timeout=600 * len(answers))
    passed = []
    for patch, what, names in answers:
        results = graded.get(patch, [])
        name = os.path.relpath(patch, ROOT)
        assert "apply" not in results, f"{name} does not apply: {results['apply']}"
        failed = [t for t in results if not t["passed"]]
        if any("does not build" in t["why"] for t in failed):
            passed.append(f"{name} ({what}): does not build, so it proves nothing\n{failed[0]['why'][-1500:]}")
            continue
        if not failed:
            passed.append(f"{name} ({what}): full marks")
        elif not any(re.search(names, t["test"] + "\n" + t["why"], re.I) for t in failed):
            passed.append(f"{name} ({what}): below full marks, but no failure names /{names}/:\n"
                          + "\n".join(f"  {t['test']}: {t['why']}" for t in failed))
    assert not passed, f"wrong answers the {lab} grader does not catch as it should:\n" + "\n\n".join(passed)
