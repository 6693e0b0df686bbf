"""A ReDoS probe: every regular expression written in a source file, run over inputs
built from its own parts to make a backtracking engine stall.

    python -m tests.security.redos shared/footnote/archives/read.py ...

Static checkers (regexploit, redos) were tried first: neither flags the two patterns
the issue 46 probe found stalling for 16-17 s (a heading's ``^#\\s+(.+?)\\s*#*\\s*$``,
cubic, and a wikilink's quadratic ``\\[\\[([^\\]|#]+)…``), because both only look
for nested or adjacent stars within one match attempt. This probe measures instead.

Patterns are found in the source's syntax tree: a string literal given to
``re.compile``, ``re.sub`` and the other module functions, with its flags when they
are ``re.X`` names. From each, through ``re._parser`` (the stdlib's own parse), come
its literal runs (``[[``, ``<en-todo``) and one character of each class it reads
(``\\s`` → " ", ``[^\\]]`` → "a", …). Each pattern is run (``finditer``, as ``sub``
and ``findall`` scan) over, for every such character ``c`` and literal run ``r``:
``c * n + killer`` and ``r + c * n + killer``, ``r * n`` and ``(r + c) * n``, where
and ``r0 + c1 + c2 * n + killer`` for its opening run ``r0``, where
``killer`` is a character no class of it names: the inputs on which a backtracking
engine retries what it already failed. A linear pattern reads these 20,000
characters in milliseconds; a quadratic one takes seconds, a cubic one hours.

Printed: one JSON line per pattern, flushed as it finishes, with the slowest input's
time and a sample of it. An input still running after ``STALL_S`` is stopped there (the
regex engine looks at signals as it backtracks) and the pattern reported as stalled.
"""

from __future__ import annotations

import ast
import json
import re
import re._parser as sre_parse  # the stdlib's own parse of a pattern (Python 3.11+)
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LENGTH = 20_000
STALL_S = 5.0  # an input still running after this is stopped: the pattern stalls
TIMED_S = 0.05  # an input this slow is timed again at four times its length
_FUNCTIONS = {  # the re functions taking a pattern first, and where their flags go
    "compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2, "finditer": 2,
    "split": 3, "sub": 4, "subn": 4,
}  # fmt: skip
_CATEGORY_SAMPLES = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": " ",
    "CATEGORY_LINEBREAK": "\n",
    "CATEGORY_NOT_LINEBREAK": "a",
}


@dataclass(frozen=True)
class Found:
    file: str
    line: int
    pattern: str
    flags: int


def patterns(paths: list[Path]) -> Iterator[Found]:
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in _FUNCTIONS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            at = _FUNCTIONS[node.func.attr]
            flag_node = node.args[at] if len(node.args) > at else None
            for keyword in node.keywords:
                if keyword.arg == "flags":
                    flag_node = keyword.value
            yield Found(str(path), node.lineno, node.args[0].value, _flags(flag_node))


def _flags(node: ast.AST | None) -> int:
    if node is None:
        return 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return int(getattr(re, node.attr, 0))
    return 0


def _parts(pattern: str, flags: int) -> tuple[list[str], list[str]]:
    """The pattern's literal runs and one character for each class it reads."""
    runs: list[str] = []
    chars: set[str] = {" ", "\n", "a", "0"}

    def walk(items: Any) -> None:
        run = ""
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                run += chr(arg)
                chars.add(chr(arg))
                continue
            if run:
                runs.append(run)
                run = ""
            if name in ("IN", "NOT_LITERAL"):
                members: list[tuple[Any, Any]] = arg if name == "IN" else []
                for sub_op, sub_arg in members:
                    sub = str(sub_op)
                    if sub == "LITERAL":
                        chars.add(chr(sub_arg))
                    elif sub == "RANGE":
                        chars.add(chr(sub_arg[0]))
                    elif sub == "CATEGORY":
                        chars.add(_CATEGORY_SAMPLES.get(str(sub_arg), "a"))
            elif name == "ANY":
                chars.add("a")
            for value in arg if isinstance(arg, tuple | list) else [arg]:
                if isinstance(value, sre_parse.SubPattern):
                    walk(value)
                elif isinstance(value, list | tuple):
                    for inner in value:
                        if isinstance(inner, sre_parse.SubPattern):
                            walk(inner)
        if run:
            runs.append(run)

    walk(sre_parse.parse(pattern, flags))
    first = runs[:1]  # the pattern's opening, where a match attempt starts
    return first + sorted(set(runs) - set(first), key=lambda r: (-len(r), r))[:7], sorted(chars)


def attacks(pattern: str, flags: int, length: int = LENGTH) -> Iterator[str]:
    runs, chars = _parts(pattern, flags)
    killer = next(k for k in ("\x00", "\x01", "\ufffe", "~", "!") if k not in chars)
    for c in chars:
        yield c * length + killer
        for r in runs:
            yield r + c * length + killer
            yield (r + c) * (length // (len(r) + 1)) + killer
    for r in runs:
        yield r * (length // len(r)) + killer
    for c1 in chars:  # an opening, one character, then a run of another ("# a    …x")
        for c2 in chars:
            if c1 != c2:
                yield runs[0] + c1 + c2 * length + killer if runs else c1 + c2 * length + killer


class _Stalled(Exception):
    pass


def _stall(signum: int, frame: Any) -> None:
    raise _Stalled


def _run(compiled: re.Pattern[str], text: str) -> float:
    started = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, STALL_S + 0.01)
    try:
        for _ in compiled.finditer(text):
            pass
    except _Stalled:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - started


def probe(found: Found) -> dict[str, Any]:
    """The slowest input's time and, when it is long enough to time, how that time
    grew with the input four times as long (``growth``: about 4 for a linear
    pattern, 16 for a quadratic one; a stall counts as infinite)."""
    compiled = re.compile(found.pattern, found.flags)
    signal.signal(signal.SIGALRM, _stall)
    slowest, worst, sample = 0.0, -1, ""
    for i, text in enumerate(attacks(found.pattern, found.flags)):
        took = _run(compiled, text)
        if took > slowest:
            slowest, worst, sample = took, i, repr(text[:40]) + f"… ({len(text):,} chars)"
        if took >= STALL_S:
            break
    growth: float | None = None
    longer = 0.0
    if TIMED_S <= slowest < STALL_S:
        text, longer_text = _nth(found, worst, LENGTH), _nth(found, worst, 4 * LENGTH)
        once, longer = STALL_S, STALL_S
        for _ in range(3):  # the least of three, taken in turns: a loaded machine only slows
            once = min(once, _run(compiled, text))
            longer = min(longer, _run(compiled, longer_text))
            if longer >= STALL_S:
                break
        growth = float("inf") if longer >= STALL_S else round(longer / max(once, 1e-6), 1)
    return {
        "file": found.file, "line": found.line, "pattern": found.pattern,
        "seconds": round(slowest, 4), "stalled": slowest >= STALL_S, "growth": growth,
        "superlinear": slowest >= STALL_S or (growth is not None and growth >= 8 and longer >= 0.3),
        "sample": sample,
    }  # fmt: skip


def _nth(found: Found, n: int, length: int) -> str:
    return next(t for i, t in enumerate(attacks(found.pattern, found.flags, length)) if i == n)


def main(argv: list[str]) -> None:
    """``--skip FILE:PATTERN`` (repeated): a pattern known and judged elsewhere."""
    skip = {argv[i + 1] for i, a in enumerate(argv) if a == "--skip"}
    files = [a for i, a in enumerate(argv) if a != "--skip" and (i == 0 or argv[i - 1] != "--skip")]
    found = [f for f in patterns([Path(a) for a in files]) if f"{f.file}:{f.pattern}" not in skip]
    print(json.dumps({"patterns": len(found)}), flush=True)
    for item in found:
        print(
            json.dumps({"start": f"{item.file}:{item.line}", "pattern": item.pattern}), flush=True
        )
        print(json.dumps(probe(item)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
