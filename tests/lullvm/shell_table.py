"""The shell's command table, read from its source (kernel/shell/commands.c)
as the compiler reads it: each entry's name, usage and help with their
string literals joined and RANGE() / SHELL_SPELL() spelled from the
#defines of include/ (include/shell/commands.h says why the usage lines
are built so).  tests/meta/test_usage.py checks the usage lines against
the handlers' parse bounds; tests/system/test_shell.py checks `help`
against it.

    for c in commands():
        c.name, c.usage, c.help     # the strings the kernel holds
        c.usage_source              # the usage as written, RANGE() and all
        c.handler                   # cmd_sleep
"""
import glob
import os
import re
from collections import namedtuple

from lullvm.qemu import ROOT

TABLE = os.path.join(ROOT, "kernel", "shell", "commands.c")
Command = namedtuple("Command", "name usage help handler usage_source")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DEFINE = re.compile(r"^#define\s+(\w+)\s+(.+?)\s*$", re.M)
TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(\w+)|(\S))', re.S)


def defines():
    """{NAME: value as written} of every object-like #define in include/."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "include", "**", "*.h"), recursive=True):
        with open(path, encoding="utf-8") as f:
            text = COMMENT.sub(" ", f.read())
        for name, value in DEFINE.findall(text):
            found.setdefault(name, value.strip())
    return found


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        string, word, other = m.groups()
        if string is not None:
            out.append(("str", string[1:-1].encode().decode("unicode_escape")))
        elif word is not None:
            out.append(("word", word))
        elif other is not None:
            out.append(("op", other))
    return out


def _spell(word, values):
    """What SHELL_SPELL(word) turns into: the macro's value, or the word."""
    return values.get(word, word)


def _expr(tokens, i, values):
    """A string expression up to the next ',' or '}' at this depth: string
    literals and RANGE(lo, hi) / SHELL_SPELL(x) calls, joined.  Returns
    (its value, the source as a space-joined token list, next index)."""
    value, source = "", []
    while tokens[i] not in (("op", ","), ("op", "}")):
        kind, text = tokens[i]
        if kind == "str":
            value += text
            source.append(f'"{text}"')
            i += 1
            continue
        assert kind == "word" and tokens[i + 1] == ("op", "("), tokens[i:i + 4]
        args, i = [], i + 2
        while tokens[i] != ("op", ")"):
            if tokens[i] != ("op", ","):
                args.append(tokens[i][1])
            i += 1
        i += 1
        source.append(f"{text}({', '.join(args)})")
        if text == "RANGE":
            lo, hi = args
            value += f"({_spell(lo, values)}..{_spell(hi, values)})"
        elif text == "SHELL_SPELL":
            value += _spell(args[0], values)
        else:
            raise AssertionError(f"{TABLE}: a macro the table reader does not know: {text}")
    return value, " ".join(source), i


def commands(path=TABLE):
    """Every entry of shell_commands[], in order."""
    with open(path, encoding="utf-8") as f:
        text = COMMENT.sub(" ", f.read())
    body = re.search(r"shell_commands\[\]\s*=\s*\{(.*?)\n\};", text, re.S).group(1)
    tokens, values = _tokens(body) + [("op", "}")], defines()
    out, i = [], 0
    while i < len(tokens) - 1:
        if tokens[i] != ("op", "{"):
            i += 1
            continue
        name, _, i = _expr(tokens, i + 1, values)
        usage, usage_source, i = _expr(tokens, i + 1, values)
        help_text, _, i = _expr(tokens, i + 1, values)
        handler = tokens[i + 1][1]
        out.append(Command(name, usage, help_text, handler, usage_source))
        i += 2
    return out
