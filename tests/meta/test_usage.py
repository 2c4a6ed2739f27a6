"""Every usage line states the ranges its command enforces.  A handler reads
its numbers with parse_u32/parse_u64 (include/shell/args.h) between two
bounds; the table in kernel/shell/commands.c builds the command's usage
line with RANGE(lo, hi) from the very same constants (include/shell/
commands.h), so the text can only say what the code does if each bound a
handler parses with appears in a RANGE() of a command of its file.  These
tests hold that, and that no usage or help text states a number by hand.
Runs on the host only."""
import glob
import os
import re

import pytest

from lullvm.qemu import ROOT
from lullvm.shell_table import COMMENT, commands, defines

HANDLER_FILES = sorted(glob.glob(os.path.join(ROOT, "kernel", "shell", "cmd_*.c")) +
                       [os.path.join(ROOT, "kernel", "shell", "commands.c")])
PARSE_CALL = re.compile(r"\bparse_u(?:32|64)\s*\(")

# Bounds a handler takes from the running machine, not from a constant, and
# how its usage names the word instead (or why it needs no range):
RUNTIME_BOUNDS = {
    # A CPU number: the usage says CPU (or cpu=C); one that is not online
    # gets an error line naming how many are (`wakeups 9`, `busy 1 9`).
    ("0", "NR_CPUS - 1"): None,
    ("0", "UINT32_MAX"): None,
    ("0", "cpus_online - 1"): None,
    # timerload's MAX_MS is at least its MIN_MS: "MAX_MS(MIN_MS..3600000)".
    ("a->lo", "TIMERLOAD_MAX_MS"): ("MIN_MS", "TIMERLOAD_MAX_MS"),
    # inject's faults[] table holds each fault's bound: checked below.
    ("1", "f->max"): "faults",
}
# hz takes any number and keeps the rates hz_is_valid names: its usage
# lists them, and test_hz_usage_lists_the_valid_rates holds the two equal.
ANY_NUMBER = ("0", "UINT32_MAX")


def source(path):
    with open(path, encoding="utf-8") as f:
        return COMMENT.sub(" ", f.read())


def call_args(text, start):
    """The arguments of the call whose '(' ends at `start`, split at the
    commas of its own level, spaces normalized."""
    depth, args, cur, i = 1, [], "", start
    while depth:
        c = text[i]
        depth += (c == "(") - (c == ")")
        if depth == 1 and c == ",":
            args.append(cur)
            cur = ""
        elif depth:
            cur += c
        i += 1
    return [" ".join(a.split()) for a in args + [cur]]


def parse_bounds(path):
    """[(lo, hi)] of every parse_u32/parse_u64 call in a file, as written."""
    text = source(path)
    return [tuple(call_args(text, m.end())[1:3]) for m in PARSE_CALL.finditer(text)]


def handlers_in(path):
    return set(re.findall(r"^int (cmd_\w+)\(int argc", source(path), re.M)) | \
        set(re.findall(r"^static int (cmd_\w+)\(int argc", source(path), re.M))


def test_the_table_reader_reads_every_command():
    table = commands()
    assert len(table) > 30 and len({c.name for c in table}) == len(table)
    sleep = next(c for c in table if c.name == "sleep")
    assert sleep.usage_source == '"MS" RANGE(0, SLEEP_MAX_MS)'
    assert sleep.usage == "MS(0..86400000)" and sleep.handler == "cmd_sleep"
    assert parse_bounds(os.path.join(ROOT, "kernel", "shell", "cmd_latency.c")) == \
        [("1", "LATENCY_MAX_COUNT"), ("LATENCY_MIN_US", "LATENCY_MAX_US")]


@pytest.mark.parametrize("path", HANDLER_FILES, ids=os.path.basename)
def test_each_parsed_range_is_in_a_usage_line_of_its_file(path):
    """A bound pair parsed in a file is stated, as RANGE(lo, hi) of the same
    names, by the usage line of a command whose handler is in that file."""
    own = [c for c in commands() if c.handler in handlers_in(path)]
    usages = " ".join(c.usage_source for c in own)
    missing = []
    for lo, hi in parse_bounds(path):
        if (lo, hi) == ANY_NUMBER and any(c.name == "hz" for c in own):
            continue
        stated = RUNTIME_BOUNDS.get((lo, hi), (lo, hi))
        if stated is None or stated == "faults":
            continue
        if f"RANGE({stated[0]}, {stated[1]})" not in usages:
            missing.append(f"parse_u32/64 bounds {lo}..{hi}: no RANGE({stated[0]}, {stated[1]}) "
                           f"in the usage of {[c.name for c in own]}")
    assert not missing, "\n".join(missing)


def test_every_fault_of_inject_states_its_bound():
    """inject's faults[] (kernel/shell/cmd_inject.c): each fault that takes
    a number is followed in the usage by that number's word and range."""
    text = source(os.path.join(ROOT, "kernel", "shell", "cmd_inject.c"))
    faults = re.findall(r'\{\s*"([\w-]+)",\s*FAULT_(COUNT|SIGNED),\s*(\w+),', text)
    assert len(faults) >= 6, faults
    values = defines()
    usage = next(c.usage for c in commands() if c.name == "inject")
    for name, kind, bound in faults:
        sign = r"\+-" if kind == "SIGNED" else ""
        assert re.search(rf"(^|\|){name} {sign}[A-Z]+\(1\.\.{values[bound]}\)(\||$)", usage), \
            (name, bound, usage)


def test_percent_states_the_slack_bound():
    """A timer class's PERCENT (timer_class_parse, kernel/time/slack.c)
    goes up to SLACK_PERCENT_MAX, in every usage that takes one."""
    for c in commands():
        if "PERCENT" in c.usage:
            assert "PERCENT\" RANGE(0, SLACK_PERCENT_MAX)" in c.usage_source, c


def test_hz_usage_lists_the_valid_rates():
    with open(os.path.join(ROOT, "include", "time", "jiffies.h"), encoding="utf-8") as f:
        valid = re.search(r"bool hz_is_valid\(unsigned hz\)\s*\{([^}]*)\}", f.read()).group(1)
    rates = re.findall(r"hz == (\d+)", valid)
    assert next(c.usage for c in commands() if c.name == "hz") == "[" + "|".join(rates) + "]"


def test_no_number_is_written_by_hand():
    """Numbers in a usage line come from RANGE() (hz's rates aside, checked
    above); a help line states no range (the usage line does), only what
    a constant spells."""
    for c in commands():
        literals = "".join(re.findall(r'"([^"]*)"', c.usage_source))
        if c.name != "hz":
            assert not re.search(r"\d", literals), (c.name, literals)
        assert not re.search(r"\d+\s*\.\.\s*\d+", c.help), (c.name, c.help)


def test_every_range_spells_a_plain_number():
    """RANGE() prints a constant as it is written: 3600u would show as
    "3600u", (3600) as "(3600)"."""
    for c in commands():
        for lo, hi in re.findall(r"\(([^()]*)\.\.([^()]*)\)", c.usage):
            for side in (lo, hi):
                assert re.fullmatch(r"\d+|0x[0-9a-f]+|[A-Z_]+", side), (c.name, side, c.usage)
