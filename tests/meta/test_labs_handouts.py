r"""Each lab handout's table of graded checks is the grader's: every check
of tests/labs/test_LAB.py (a parametrized one once per parameter, as
`make grade` lists it) is a row `| \`check\` | points | ... |` of
docs/labs/LAB.md with its points, and the table has no other row; so a
student reads what is graded, for how much.  Runs on the host only
(pytest collects the graders; nothing boots)."""
import os
import re
import subprocess
import sys

import pytest

from lullvm.qemu import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from lab import LABS  # noqa: E402


def graded(lab):
    """{check as make grade names it: points}."""
    path = os.path.join(ROOT, "tests", "labs", f"test_{lab}.py")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    points = {name: int(p) for p, name in
              re.findall(r"@pytest\.mark\.points\((\d+)\)\n(?:@.*\n)*def (\w+)\(", src)}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
                        path], cwd=os.path.join(ROOT, "tests", "labs"), capture_output=True, text=True)
    ids = [l.split("::", 1)[1] for l in p.stdout.splitlines() if "::" in l]
    assert ids, p.stdout + p.stderr
    return {i: points[i.split("[")[0]] for i in ids}


def handout(lab):
    with open(os.path.join(ROOT, "docs", "labs", f"{lab}.md"), encoding="utf-8") as f:
        return {name: int(p) for name, p in re.findall(r"^\| `(test_[^`]+)` \| (\d+) \|", f.read(), re.M)}


@pytest.mark.parametrize("lab", list(LABS))
def test_the_handout_lists_what_is_graded(lab):
    g, h = graded(lab), handout(lab)
    assert h == g, (f"docs/labs/{lab}.md's checks table against tests/labs/test_{lab}.py:\n"
                    f"  missing or other points: { {k: v for k, v in g.items() if h.get(k) != v} }\n"
                    f"  not graded: { {k: v for k, v in h.items() if k not in g} }")
    assert list(h) == list(g), (f"docs/labs/{lab}.md lists the checks in another order than "
                                f"`make grade` prints them: {list(g)}")
