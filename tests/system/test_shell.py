"""The shell: commands, line editing, and bad input that must never break it."""
import re

import pytest

from lullvm.qemu import PROMPT
from lullvm.shell_table import commands

COMMANDS_OF_THE_FOUNDATION = ["help", "version", "cmdline", "mem", "reboot",
                              "poweroff", "fault", "acpi", "date"]
HELP_WIDTH = 80                 # kernel/shell/commands.c: a terminal's line


def help_entries(out):
    """`help` as [(name, text)]: an entry starts on a line indented two
    spaces, and lines indented further go on with it.  Its lines are joined
    as they were broken: after a '|' with nothing, at a space with a space;
    runs of spaces (the padding before what it does) count as one."""
    entries = []
    for line in out.replace("\r", "").splitlines():
        if re.match(r"  \S", line):
            entries.append([line.split()[0], line.strip()])
        elif line.startswith("   ") and entries:
            text = entries[-1][1]
            entries[-1][1] = text + ("" if text.endswith("|") else " ") + line.strip()
    return [(name, " ".join(text.split())) for name, text in entries]


def help_names(out):
    return [name for name, _ in help_entries(out)]


def test_help_lists_every_command_with_a_description(vm):
    out = vm.cmd("help")
    names = help_names(out)
    for c in COMMANDS_OF_THE_FOUNDATION:
        assert c in names, c
    assert len(names) == len(set(names))


def test_help_prints_every_usage_whole(vm):
    """Each entry of `help` is its command's name, usage and help from the
    table (kernel/shell/commands.c), whole: a long usage goes on, indented,
    on the next lines, never cut; and no line is wider than the terminal."""
    out = vm.cmd("help").replace("\r", "")
    table = commands()
    assert help_names(out) == [c.name for c in table]
    for (name, text), c in zip(help_entries(out), table):
        want = " ".join(f"{c.name} {c.usage} {c.help}".split())
        assert text == want, (name, text, want)
    wide = [line for line in out.splitlines() if len(line) > HELP_WIDTH]
    assert not wide, wide


def test_help_command_gives_its_whole_usage_and_what_it_does(vm):
    """`help CMD`: the usage line the shell prints for malformed words, on
    one line however long, then the line of help."""
    for c in commands():
        usage = f"usage: {c.name}" + (f" {c.usage}" if c.usage else "")
        out = vm.cmd(f"help {c.name}").replace("\r", "").strip("\n")
        assert out == f"{usage}\n  {c.help}", (c.name, out)
    # The same usage line as a malformed `alarm`.
    assert vm.cmd("alarm").strip() == vm.cmd("help alarm").splitlines()[0].strip()


def test_help_for_no_such_command_is_an_error(vm):
    assert vm.cmd("help nosuch").strip() == "error: help: no command 'nosuch' (try 'help')"
    assert vm.cmd("help alarm zero").strip() == "usage: help [COMMAND]"
    assert vm.cmd("version").startswith("lull")


def test_every_listed_command_is_known(vm):
    """No help entry without a handler: each name gets past 'unknown command'."""
    for name in help_names(vm.cmd("help")):
        if name in ("reboot", "poweroff", "fault", "busy", "idle", "sleep",
                    "latency", "trace"):
            continue                    # these end, crash or take time
        out = vm.cmd(name + " x y z q w e r t", timeout=15)
        assert "unknown command" not in out
        assert out.startswith("usage:") or out.startswith("error:"), (name, out)


def test_unknown_command(vm):
    assert vm.cmd("frobnicate").strip() == "unknown command: frobnicate (try 'help')"
    assert vm.cmd("frobnicate --now").strip() == "unknown command: frobnicate (try 'help')"


def test_empty_and_blank_lines(vm):
    assert vm.cmd("").strip() == ""
    assert vm.cmd("   \t  ").strip() == ""


def test_extra_arguments_give_usage(vm):
    assert vm.cmd("version now").strip() == "usage: version"
    assert vm.cmd("fault").strip() == "usage: fault ud|gp|pf|null|de|stack"
    assert vm.cmd("fault xx").strip() == "usage: fault ud|gp|pf|null|de|stack"


def test_overlong_line_is_rejected_whole(vm):
    out = vm.cmd("help " + "a" * 300)
    assert out.strip().endswith("error: line too long (max 255)")
    assert "usage:" not in out                  # never executed truncated
    assert vm.cmd("version").startswith("lull")


def test_line_of_exactly_255_is_accepted(vm):
    name = "z" * 255
    out = vm.cmd(name)
    assert out.strip() == f"unknown command: {name} (try 'help')"


def test_pasted_200_characters_arrive_complete(vm):
    name = "".join(chr(ord("a") + i % 26) for i in range(200))
    vm.send(name + "\r")                        # all at once, like a paste
    out = vm.wait_prompt()
    assert f"unknown command: {name} (try 'help')" in out


def test_several_pasted_lines_run_in_order(vm):
    vm.send("version\rfrob1\rfrob2\r")
    got = ""
    for _ in range(3):
        got += vm.wait_prompt()
    assert got.index("lull 0.") < got.index("frob1 (try") < got.index("frob2 (try")


def test_control_bytes_are_ignored(vm):
    # Raw bytes: vm.cmd would send 0x80 and 0xfe UTF-8 encoded.
    vm.send_bytes(b"\x01\x02ver\x07\x0bsion\x1b[Z\x1bO\x80\xfe\r")
    out = vm.wait_prompt().replace("\r", "")
    assert "\nlull " in out, out
    out = vm.cmd("\x00\x1f\x7f\x7f")
    assert out.strip() == ""


def test_backspace_del_ctrl_u_ctrl_c(vm):
    assert vm.cmd("versiox\bn").startswith("lull")
    assert vm.cmd("versiox\x7fn").startswith("lull")
    assert vm.cmd("garbage\x15version").startswith("lull")
    vm.type("garbage\x03")
    vm.wait_prompt()
    assert vm.cmd("version").startswith("lull")


def test_history_up_and_down(vm):
    vm.cmd("version")
    vm.cmd("frob")
    assert vm.cmd("\x1b[A\x1b[A").startswith("lull")
    # History is now version, frob, version (newest first).
    assert "unknown command: frob" in vm.cmd("\x1b[A\x1b[A\x1b[A\x1b[B")


def test_bad_input_storm_leaves_shell_responsive(vm):
    storm = "".join(chr(c) for c in range(1, 32) if c not in (3, 10, 13)) * 4
    vm.send(storm + "\x1b[" + "9" * 50 + "\r")
    vm.wait_prompt()
    vm.send("x" * 1500 + "\r")
    vm.expect_exact("error: line too long (max 255)")
    vm.wait_prompt()
    assert vm.cmd("version").startswith("lull")


def test_run_boot_option_runs_each_command_then_powers_off(boot):
    """run="CMD; CMD...": each command after a prompt as if typed, in order,
    an unknown one reported and passed over; then lull powers off by itself.
    Quotes keep the spaces; without them ',' is the space."""
    vm = boot('hz=100 run="version;  nosuchcmd ; alarm zero;;hz" tick=periodic', wait_prompt=False)
    vm.wait_exit(timeout=30)
    log = vm.log_text().replace("\r", "")
    ran = re.findall(r"^lull> (.*)$", log, re.M)
    assert ran == ["version", "nosuchcmd ", "alarm zero", "hz"], ran
    assert "unknown command: nosuchcmd" in log
    assert "alarm zero: PASS" in log
    assert "HZ=100 " in log, "an option after run= still applies"
    assert re.search(r"run: done, powering off\s+poweroff: bye\s*$", log), log[-300:]

    vm = boot("run=alarm,zero;hz", wait_prompt=False)
    vm.wait_exit(timeout=30)
    log = vm.log_text().replace("\r", "")
    assert re.findall(r"^lull> (.*)$", log, re.M) == ["alarm zero", "hz"]


def test_run_deadline_in_guest_time_names_the_command_it_cut(run):
    """deadline=S: a run= boot still busy S s of guest time after boot says
    which command was running and powers off; one that finishes in time is
    not touched, and a malformed deadline is refused with a warning."""
    r = run(["uptime", "sleep 4000", "uptime"], append="deadline=2")
    assert re.search(r"run: deadline of 2 s \(guest time\) passed while running 'sleep 4000'; "
                     r"powering off", r.log), r.tail()
    assert "run: done" not in r.log and len(re.findall(r"^up ", r.log, re.M)) == 1, r.tail()
    r = run(["sleep 1000", "uptime"], append="deadline=2")
    assert "run: done, powering off" in r.log and "deadline" not in r.log.split("lull> sleep")[1]
    for bad, words in (("0", "bad value '0'"), ("x", "bad value 'x'"), ("3601", "bad value '3601'"),
                       ("", "needs a value")):
        r = run(["hz"], append=f"deadline={bad}" if bad else "deadline")
        line = re.search(r"^cmdline: .*option 'deadline'.*$", r.log, re.M)
        assert line and words in line.group(0), r.tail()
        assert "run: done" in r.log


def test_run_boot_option_with_an_open_quote_or_nothing(boot):
    vm = boot('run="hz; version', wait_prompt=False)
    vm.wait_exit(timeout=30)
    log = vm.log_text().replace("\r", "")
    assert "cmdline: a quote is never closed" in log
    assert re.findall(r"^lull> (.*)$", log, re.M) == ["hz", "version"]
    vm = boot("run=")
    assert "cmdline: malformed option 'run='" in vm.log_text()
    assert "HZ=" in vm.cmd("hz"), "an empty run= leaves the shell to the user"
