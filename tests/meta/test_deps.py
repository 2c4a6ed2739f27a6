"""Setting up on a machine without apt, or with NO_DEPS=1: nothing is
installed, and a missing tool stops make (even `make -n`) with one line
naming it and where to get it (tools/check-deps).

Nothing is uninstalled to test this: make runs with a PATH of symlinks to
every program on the real PATH except the ones a test hides.  Runs on the
host only; no emulator is started."""
import os
import shutil
import subprocess

import pytest

from lullvm.qemu import ROOT

CROSS_GCC = "i686-linux-gnu-gcc"


@pytest.fixture
def path_without(tmp_path):
    """path_without("nasm", ...) -> a PATH with every program but these."""
    def _make(*hidden):
        farm = tmp_path / "bin"
        farm.mkdir(exist_ok=True)
        for d in os.environ["PATH"].split(os.pathsep):
            if not os.path.isdir(d):
                continue
            for name in os.listdir(d):
                target = os.path.join(d, name)
                link = farm / name
                if name in hidden or link.exists() or not os.access(target, os.X_OK):
                    continue
                link.symlink_to(target)
        return str(farm)
    return _make


def run(args, path, tmp_path, **env):
    """Run a command in the tree with this PATH; return (status, output lines)."""
    # Not make's own variables either: under `make test` MAKELEVEL > 0 makes
    # the inner make print "Entering directory" lines around its message.
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("NO_DEPS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    full_env.update(PATH=path, **env)
    p = subprocess.run(args, cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=60)
    return p.returncode, [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]


def make_n(goal, path, tmp_path, **env):
    make = shutil.which("make")
    return run([make, "-n", f"BUILD={tmp_path / 'build'}", goal], path, tmp_path, **env)


def missing_line(lines):
    """The one line that says what is missing."""
    assert len(lines) == 1, lines
    assert "lull: missing " in lines[0], lines
    return lines[0]


def test_everything_here_make_n_goes_ahead(path_without, tmp_path):
    status, lines = make_n("test", path_without(), tmp_path, NO_DEPS="1")
    assert status == 0, lines
    assert not any("missing" in l for l in lines), lines


def test_no_deps_missing_tool_stops_make_n_with_one_line(path_without, tmp_path):
    status, lines = make_n("all", path_without("nasm"), tmp_path, NO_DEPS="1")
    assert status != 0
    line = missing_line(lines)
    assert "nasm (package nasm)" in line, line
    # apt is here: the way to get it is make without NO_DEPS.
    assert "without NO_DEPS=1" in line, line


def test_without_apt_make_checks_instead_of_installing(path_without, tmp_path):
    path = path_without("apt-get", "dpkg-query", "sudo", CROSS_GCC)
    status, lines = make_n("all", path, tmp_path)
    assert status != 0
    line = missing_line(lines)
    assert f"{CROSS_GCC} (" in line and "CROSS=" in line, line
    assert "package manager" in line, line
    # The installer, run by hand, says the same instead of calling apt.
    status, lines = run(["tools/install-deps"], path, tmp_path)
    assert status != 0
    assert f"{CROSS_GCC} (" in missing_line(lines)


def test_each_goal_checks_only_what_it_needs(path_without, tmp_path):
    path = path_without(CROSS_GCC, "qemu-system-i386")
    # Host unit tests need neither the cross compiler nor QEMU.
    status, lines = make_n("unit", path, tmp_path, NO_DEPS="1")
    assert status == 0, lines
    # `make run` needs both: one line names both, each once.
    status, lines = make_n("run", path, tmp_path, NO_DEPS="1")
    line = missing_line(lines)
    assert status != 0
    assert line.count(CROSS_GCC) == 1 and line.count("qemu-system-i386") == 1, line
    # `make clean` needs nothing.
    status, lines = make_n("clean", path, tmp_path, NO_DEPS="1")
    assert status == 0, lines


def test_missing_python_modules_and_cmocka_are_named(path_without, tmp_path):
    path = path_without()
    # A python without its site packages has no pytest or pexpect.
    bare_python = tmp_path / "python-bare"
    bare_python.write_text("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")
    # A host compiler that cannot find the cmocka library.
    no_cmocka_cc = tmp_path / "cc-no-cmocka"
    no_cmocka_cc.write_text('#!/bin/sh\nfor a; do [ "$a" = -lcmocka ] && '
                            '{ echo "ld: cannot find -lcmocka" >&2; exit 1; }; done\n'
                            'exec gcc "$@"\n')
    for f in (bare_python, no_cmocka_cc):
        f.chmod(0o755)
    status, lines = run(["tools/check-deps", "unit", "system"], path, tmp_path,
                        PYTHON=str(bare_python), HOSTCC=str(no_cmocka_cc))
    assert status != 0
    line = missing_line(lines)
    assert "pexpect for " in line and "package python3-pexpect" in line, line
    assert "package libcmocka-dev" in line, line


def test_fuzzing_needs_clang_and_libfuzzer(path_without, tmp_path):
    # `make fuzz` (and so `make test`) needs clang-14; without it, one line.
    status, lines = make_n("fuzz", path_without("clang-14"), tmp_path, NO_DEPS="1")
    assert status != 0
    assert "clang-14 (package clang-14)" in missing_line(lines)
    # A clang that cannot link -fsanitize=fuzzer: libFuzzer's package is named.
    no_libfuzzer = tmp_path / "clang-no-libfuzzer"
    no_libfuzzer.write_text('#!/bin/sh\nfor a; do case "$a" in -fsanitize=fuzzer*) '
                            'echo "ld: cannot find libclang_rt.fuzzer" >&2; exit 1;; esac; done\n'
                            'exec clang-14 "$@"\n')
    no_libfuzzer.chmod(0o755)
    status, lines = run(["tools/check-deps", "fuzz"], path_without(), tmp_path,
                        FUZZCC=str(no_libfuzzer))
    assert status != 0
    assert "package libclang-rt-14-dev" in missing_line(lines)
    # The unit tests do not need it.
    status, lines = make_n("unit", path_without("clang-14"), tmp_path, NO_DEPS="1")
    assert status == 0, lines
