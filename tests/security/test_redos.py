"""No regular expression in shared/ backtracks past linear time on text built to make
it (issue 46: a heading pattern took 17 s on one line of spaces, a wikilink pattern
16 s on 20,000 brackets). The probe (tests/security/redos.py) runs in a child
process, each input stopped after a few seconds; here, its findings are judged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Superlinear when searched for, linear as used: each pattern and why.
LINEAR_AS_USED = {
    ("shared/footnote/temporal.py", r"\(.*?\)"): (
        "dateparser's own language data, never a user's text"
    ),
    ("shared/footnote/services/notes.py", r"(?!__.*__$)[A-Za-z0-9_-]{1,200}"): (
        "fullmatch on a client's note id: one attempt, from its start"
    ),
    ("shared/footnote/adapters/cursors.py", r"(?!__.*__$)[A-Za-z0-9_-]{1,200}"): (
        "fullmatch on the id in a cursor: one attempt, from its start"
    ),
}


def _probe(files: list[str], skip: tuple[str, ...] = ()) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "shared") + os.pathsep + str(ROOT)}
    skipped = [arg for item in skip for arg in ("--skip", item)]
    done = subprocess.run(
        [sys.executable, "-m", "tests.security.redos", *files, *skipped],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=True,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    expected = lines[0]["patterns"]
    results = [line for line in lines if "seconds" in line]
    assert len(results) == expected, done.stderr
    return results


def test_every_pattern_in_shared_reads_hostile_text_in_linear_time() -> None:
    files = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "shared").rglob("*.py"))
    results = _probe(files, tuple(f"{file}:{pattern}" for file, pattern in LINEAR_AS_USED))
    assert len(results) > 30  # the archive reader's and text.py's, at least
    superlinear = [r for r in results if r["superlinear"]]
    assert not superlinear, json.dumps(superlinear, indent=1, ensure_ascii=False)
    for file, pattern in LINEAR_AS_USED:  # a pattern gone comes off the list
        assert pattern in (ROOT / file).read_text(), f"{file} no longer has {pattern}"


def test_the_probe_finds_the_patterns_the_issue_found() -> None:
    """The patterns read.py had at 46f40ae: a test that can fail."""
    old = (
        "import re\n"
        "_HEADING = re.compile(r'^#\\s+(.+?)\\s*#*\\s*$')\n"
        "_WIKILINK = re.compile(r'\\[\\[([^\\]|#]+)(?:#[^\\]|]*)?(?:\\|([^\\]]+))?\\]\\]')\n"
        "_FINE = re.compile(r'(?<![\\w#&/])#([A-Za-z][\\w/-]{0,60})')\n"
    )
    path = ROOT / "build" / "redos-probe-sample.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(old)
    try:
        results = _probe([str(path)])
    finally:
        path.unlink()
    assert [bool(r["superlinear"]) for r in results] == [True, True, False], results
