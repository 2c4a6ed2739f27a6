"""docs/labs/README.md agrees with the graders: the deadlines it quotes are
the ones tests/lullvm/labs.py sets, the QEMU command it shows is what
`tools/grade.py --qemu` prints for the same commands, and its table of
what each lab builds on is tools/lab.py's BUILDS_ON.  Runs on the host
only (nothing boots)."""
import os
import re
import subprocess
import sys

from lullvm.labs import GUEST_DEADLINE_S, HOST_BACKSTOP_S
from lullvm.qemu import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from lab import BUILDS_ON, LABS  # noqa: E402

README = os.path.join(ROOT, "docs", "labs", "README.md")


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def test_the_deadlines_are_the_graders():
    text = readme()
    assert f"**{GUEST_DEADLINE_S} s of guest time**" in text and f"deadline={GUEST_DEADLINE_S}" in text
    assert f"**{HOST_BACKSTOP_S} s of your machine's time**" in text
    # No other figure for a grader's deadline.
    others = set(re.findall(r"\b(\d+) s\b", text)) - {str(GUEST_DEADLINE_S), str(HOST_BACKSTOP_S)}
    assert not others, f"deadline-like figures the graders do not use: {sorted(others)}"


def test_the_qemu_command_is_the_graders():
    text = readme()
    m = re.search(r"```sh\n(/usr/bin/python3 tools/grade.py --qemu (\"[^\"]+\")(?: --append (\S+))?)\n```"
                  r"\s*\nprints\s*\n\s*```sh\n(.+?)\n```", text, re.S)
    assert m, "docs/labs/README.md: the grade.py --qemu example and what it prints"
    args = [sys.executable, "tools/grade.py", "--qemu", m.group(2).strip('"')] + \
        (["--append", m.group(3)] if m.group(3) else [])
    env = {k: v for k, v in os.environ.items() if k != "LULL_SMP"}
    out = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env).stdout.strip()
    assert out == m.group(4).strip(), f"grade.py --qemu prints:\n{out}\nthe README shows:\n{m.group(4)}"


def test_the_builds_on_table_is_tools_lab_py():
    rows = dict(re.findall(r"^\| `(\w+)` \| ((?:`\w+`(?:, )?)+|—) \|$", readme(), re.M))
    table = {lab: re.findall(r"`(\w+)`", deps) for lab, deps in rows.items()}
    assert table == {lab: BUILDS_ON[lab] for lab in LABS}
