"""The docs' shell transcripts agree with the kernel (issue 33: "docs that
agree with the kernel").  Every code block of README.md, docs/*.md and
docs/labs/*.md that holds `lull> CMD` lines is run: its commands, in
order, in one boot driven by run= under icount (HZ=250 unless the block
says otherwise), and then, for each command:

- it is accepted: no `usage:`, `unknown command` or `error:` line, unless
  the doc shows one;
- each output line the doc shows under it, each output it quotes in its
  comment ("alarm multiple: PASS", or a comment that starts with the
  command's own first word, as `# idle 5.002 s: 1243 wakeups ...`), and
  each fragment it quotes after `...`, has the shape of a line lull
  printed: the same words, figures aside (every number stands for any
  number; a lone capital such as the W of "W wakeups" for a number too);
  a shown line ending in `...` is a prefix.

A block that needs boot options names them in an HTML comment on the
line before it, `<!-- transcript: -smp 4 tick=dyntick -->` (`-smp N` goes
to QEMU, the rest to the kernel), or says why it cannot run:
`<!-- transcript: skip: the keys typed are part of it -->`."""
import glob
import os
import re

import pytest

from lullvm.qemu import ROOT

DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in
                              glob.glob(os.path.join(ROOT, "docs", "*.md")) +
                              glob.glob(os.path.join(ROOT, "docs", "labs", "*.md")))
PROMPT = "lull> "
MARKER = re.compile(r"<!--\s*transcript:\s*(.*?)\s*-->")
NUMBER = re.compile(r"[-+]?(?:0x[0-9a-f]+|\d[\d,]*(?:\.\d+)?)", re.I)


def shape(text):
    """A line's words with every figure a `#` and the spacing folded."""
    text = re.sub(r"\s*<-.*$", "", text)                  # the docs' "<- your keys" notes
    text = NUMBER.sub("#", text)
    text = re.sub(r"(?<![\w#])[A-Z](?![\w])", "#", text)  # W, T, H% in "W wakeups in T ms"
    return " ".join(text.split())


def blocks(doc):
    """[(first line number, lines, options)] of the doc's code blocks that
    hold a prompt: fenced ones, and ones indented by four spaces."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    found, i = [], 0
    while i < len(lines):
        start, body = i, None
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body, i = lines[i + 1:j], j + 1
            start += 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body, i = [l[4:] for l in lines[i:j]], j
        else:
            i += 1
            continue
        if any(l.lstrip().startswith(PROMPT) for l in body):
            above = "\n".join(lines[max(0, start - 4):start])
            m = MARKER.search(above)
            found.append((start + 1, body, m.group(1) if m else ""))
    return found


def transcript(body):
    """[(line offset, command, comment lines, shown output lines)]; None
    for a block laid out in columns (two prompts on a line)."""
    entries = []
    for n, line in enumerate(body):
        if line.count(PROMPT) > 1:
            return None
        s = line.strip()
        if s.startswith(PROMPT):
            cmd, _, comment = s[len(PROMPT):].partition("#")
            entries.append((n, cmd.strip(), [comment.strip()] if comment.strip() else [], []))
        elif entries and s.startswith("#") and not entries[-1][3]:
            entries[-1][2].append(s[1:].strip())
        elif entries and s and s != "...":
            entries[-1][3].append(s)
    return entries


def quoted(cmd, comments):
    """What a command's comment quotes of its output: (text, whole line?)."""
    out = []
    word = cmd.split()[0]
    for i, c in enumerate(comments):
        out += [(q, False) for q in re.findall(r'"([^"]+)"', c) if re.search(r"[:%]|\bPASS\b", q)]
        if c.startswith(word + " ") or c == word or (i > 0 and comments[0].startswith(word)):
            out.append((c, True))
        elif c.startswith("... ") and re.search(r"\w: \S", c):
            out.append((c[4:], False))
    return out


def matches(want, lines, whole):
    w = shape(re.sub(r"(,\s*)?\.\.\.\s*$|[:,]\s*$", "", want))
    shapes = [shape(l) for l in lines]
    return any(s.startswith(w) if whole else w in s for s in shapes)


def cases():
    for doc in DOCS:
        for line, body, options in blocks(doc):
            entries = transcript(body)
            if entries is None or options.startswith("skip"):
                continue
            yield pytest.param(doc, line, entries, options, id=f"{doc}:{line}")


@pytest.mark.parametrize("doc,line,entries,options", list(cases()))
def test_transcript_agrees_with_the_kernel(run, doc, line, entries, options):
    smp = re.search(r"-smp (\d+)", options)
    append = " ".join(re.sub(r"-smp \d+", "", options).split())
    if "hz=" not in append:
        append = f"hz=250 {append}".strip()
    r = run([cmd for _, cmd, _, _ in entries], append=append, timeout=240,
            **({"smp": int(smp.group(1))} if smp else {}))
    wrong = []
    outs = r.outs
    for i, (n, cmd, comments, shown) in enumerate(entries):
        lines = [l for l in (outs[i] if i < len(outs) else "").replace("\r", "").split("\n") if l.strip()]
        where = f"{doc}:{line + n} `{cmd}`"
        said = " ".join(comments + shown).lower()
        for bad in ("usage:", "unknown command", "error:"):
            if any(l.startswith(bad) for l in lines) and bad.rstrip(":") not in said:
                wrong.append(f"{where}: lull says {[l for l in lines if l.startswith(bad)][0]!r}")
        for s in shown:
            if not matches(s, lines, True):
                wrong.append(f"{where}: the doc shows {s!r}; lull printed:\n    " + "\n    ".join(lines[:12]))
        for q, whole in quoted(cmd, comments):
            if not matches(q, lines, whole):
                wrong.append(f"{where}: the doc quotes {q!r}; lull printed:\n    " + "\n    ".join(lines[:12]))
    assert not wrong, "\n".join(wrong)
