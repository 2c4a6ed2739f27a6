"""docs/labs/README.md's "Your first hour", followed as written: each
command of its first shell block runs in order, in one bash, with DIR a
fresh folder; then what the section says you will see is checked.  (One
step is added for speed: after `make lab`, the copy's build/ is seeded
with this tree's objects, so make rebuilds only what the lab changed.)"""
import os
import re
import subprocess

from lullvm.qemu import ROOT

README = os.path.join(ROOT, "docs", "labs", "README.md")
MARK = "### step: "


def first_hour_commands():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Your first hour", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    cmds = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
    return [c for c in cmds if c]


def test_the_first_hour_as_written(tmp_path):
    cmds = first_hour_commands()
    assert cmds[0].startswith("bash tools/install-deps") and any(c.startswith("make grade") for c in cmds)
    copy = str(tmp_path / "lab")
    script = ["set -u"]
    for c in cmds:
        script.append(f"echo '{MARK}{c}'")
        script.append(c)
        if c.startswith("make lab "):
            script.append(f"{os.environ.get('PYTHON', '/usr/bin/python3')} -c "
                          f"'import sys; sys.path.insert(0, \"{ROOT}/tests\"); "
                          f"from lullvm.labs import copy_build; copy_build(\"{copy}\")'")
    p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, DIR=copy), timeout=600)
    out = p.stdout + p.stderr
    steps = {s.split("\n", 1)[0]: s.split("\n", 1)[1] if "\n" in s else ""
             for s in out.split(MARK)[1:]}
    by = {c.split()[0] + " " + c.split()[1]: steps.get(c, "") for c in cmds}

    # make lab: a copy of one commit.
    log = subprocess.run(["git", "-C", copy, "log", "--oneline"], capture_output=True, text=True).stdout
    assert len(log.splitlines()) == 1, out[-3000:]
    # grep: the regions, each a BEGIN marker in kernel/sleep.c.
    assert len(re.findall(r"^\d+:\s*/\* LAB alarm: BEGIN", by["grep -n"], re.M)) == 4, by["grep -n"]
    # make grade: the table, a failure's block as the section shows it, and
    # the score the section shows.
    grade = by["make grade"]
    assert re.search(r"^== lab alarm: .*\n  check\s+points  result$", grade, re.M), grade[-3000:]
    assert re.search(r"^  test_pintos_alarm\[single\]\s+0/5  FAILED$", grade, re.M), grade[-3000:]
    assert re.search(r"^-- alarm: test_pintos_alarm\[single\] failed:\n   expected: 'alarm single: PASS'\n"
                     r"   seen:     alarm single: FAIL: .*\n   the kernel printed:\n", grade, re.M), grade[-3000:]
    with open(README, encoding="utf-8") as f:
        shown = re.search(r"^\s*(Score: 0/\d+)$", f.read().split("## Your first hour", 1)[1], re.M).group(1)
    assert "lab alarm: not implemented" in grade and re.search(rf"^{re.escape(shown)}$", grade, re.M), \
        grade[-3000:]
    # One check alone: it fails, and it is one.
    one = [v for k, v in steps.items() if "-k single" in k][0]
    assert re.search(r"\b1 failed\b", one) and "lab alarm: not implemented" in one, one[-3000:]
