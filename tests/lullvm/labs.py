"""Copies of lull's tree for the labs' system tests (tests/system/test_labs.py,
test_labs_wrong.py): this tree's build objects go along, so that make
rebuilds only what a test changed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import re

from .qemu import ELF, ICOUNT_SHIFT, ROOT, qemu_args, run_line

PYTHON = "/usr/bin/python3"

# How long a graded boot may run, in guest time (the kernel's own deadline=
# option powers it off and names the command it cut), and the host-time
# limit behind it for a kernel hung with interrupts off.  docs/labs/README.md
# quotes both; tests/meta/test_labs_docs.py checks that it does.
GUEST_DEADLINE_S = 60
HOST_BACKSTOP_S = 300
GRADED_HZ = 250         # unless a check names another: the tree's own HZ does not matter


def boot_append(commands, append=""):
    """The kernel command line of a graded boot of `commands`."""
    if not re.search(r"(^|\s)hz=", append):
        append = f"hz={GRADED_HZ} {append}"
    if commands:
        append = f"{append} deadline={GUEST_DEADLINE_S} {run_line(commands)}"
    return " ".join(append.split())


def boot_command(commands, append="", elf=ELF):
    """The graders' QEMU command line for a boot of `commands`, as a list
    (what `tools/grade.py --qemu` prints; lullvm.qemu.run_script runs it,
    pinned to one host CPU)."""
    return qemu_args(append=boot_append(commands, append), icount=ICOUNT_SHIFT, elf=elf, pin=False)
BUILD_PARTS = ["kernel", "drivers", "boot", "unit", "lull.elf", "timer_bench"]


def copy_build(dst):
    """This tree's objects into dst/build (its HZ stamp too)."""
    os.makedirs(os.path.join(dst, "build"), exist_ok=True)
    for part in BUILD_PARTS:
        src = os.path.join(ROOT, "build", part)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, "build", part), symlinks=True)
        elif os.path.exists(src):
            shutil.copy2(src, os.path.join(dst, "build", part))
    for stamp in os.listdir(os.path.join(ROOT, "build")):
        if stamp.startswith(".hz-"):
            shutil.copy2(os.path.join(ROOT, "build", stamp), os.path.join(dst, "build", stamp))


def copy_tree(dst, files):
    """The tracked files (a list of paths) and the build objects into dst."""
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(dst, f)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dst, f))
    copy_build(dst)


def grade(tree, lab=None, timeout=600, exitfirst=False):
    """tools/grade.py in `tree`: (the process, its JSON results)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "grade.json")      # not in the tree: it would show in git status
        args = [PYTHON, "tools/grade.py"] + ([lab] if lab else []) + ["--json", out] + \
            (["--exitfirst"] if exitfirst else [])
        p = subprocess.run(args, cwd=tree, capture_output=True, text=True, timeout=timeout)
        with open(out) as f:
            return p, json.load(f)


def grade_each(lab, patches, out):
    """Run in a copy of the tree, from its root (`python3 -c`, as
    tests/system/test_labs_wrong.py does): for each patch, apply it, run
    the lab's checks to the first that fails (pytest -x: the checks alone,
    not tools/grade.py, so a wrong answer a host test catches costs no
    kernel build), and take it off again.  All in this one process: the
    interpreter, pytest and the collection are paid once, not once per
    patch.  The checks' modules are imported afresh for each: the graders'
    conftest keeps what it built and ran in module state.
    Writes {patch: [{test, points, passed, why}] or {"apply": error}} to
    `out` as JSON."""
    import pytest
    found = {}
    results = os.path.join(tempfile.mkdtemp(), "results.json")
    for patch in patches:
        p = subprocess.run(["git", "apply", patch], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            found[patch] = {"apply": p.stderr}
            continue
        if os.path.exists(results):
            os.remove(results)
        os.environ["LAB_RESULTS"] = results
        for name in [m for m in sys.modules if m == "conftest" or m.startswith("test_")]:
            del sys.modules[name]
        pytest.main(["-q", "-x", "-p", "no:cacheprovider", os.path.join("tests", "labs", f"test_{lab}.py")])
        try:
            with open(results) as f:
                found[patch] = json.load(f)
        except (OSError, ValueError):
            found[patch] = []
        p = subprocess.run(["git", "apply", "-R", patch], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            found[patch] = {"apply": "taking it off again: " + p.stderr}
            break
    with open(out, "w") as f:
        json.dump(found, f)
