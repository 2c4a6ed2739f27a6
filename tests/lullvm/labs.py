"""Copies of lull's tree for the labs' system tests (tests/system/test_labs.py,
test_labs_wrong.py): this tree's build objects go along, so that make
rebuilds only what a test changed."""
import json
import os
import shutil
import subprocess
import tempfile

from .qemu import ROOT

PYTHON = "/usr/bin/python3"
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
