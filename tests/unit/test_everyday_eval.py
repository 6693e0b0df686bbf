"""The everyday-notebook evaluation: its data checks out, and its scores mean what
they say (an in-process run of a tiny notebook with the hash embedder)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

from footnote.evaluation.bench import eval_settings
from footnote.evaluation.everyday import evaluate_everyday, states_date

ROOT = Path(__file__).resolve().parents[2]

NOTEBOOK = {
    "notebook": "tiny",
    "now": "2026-03-12T09:00:00",
    "timezone": "Europe/Berlin",
    "notes": [
        {
            "id": "n1",
            "created": "2026-03-10T08:00:00",  # a Tuesday
            "title": "Todo",
            "tags": ["admin"],
            "text": "Send the Seedcamp deck to Maria before Friday.",
        },
        {
            "id": "n2",
            "created": "2026-03-11T19:30:00",
            "title": None,
            "tags": ["capex"],
            "text": "Bike lock combo is 4471.",
        },
    ],
    "questions": [
        {"id": "q1", "question": "When is the Seedcamp deck due?", "kind": "when",
         "answer_notes": ["n1"], "answers": [], "date": "2026-03-13"},
        {"id": "q2", "question": "What is the bike lock combo?", "kind": "fact",
         "answer_notes": ["n2"], "answers": ["4471"]},
        {"id": "q3", "question": "capex", "kind": "search", "answer_notes": ["n2"],
         "answers": []},
        {"id": "q4", "question": "What is the office wifi password?", "kind": "decline",
         "answer_notes": [], "answers": []},
    ],
}  # fmt: skip


def test_the_public_set_validates() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "everyday" / "validate.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_tiny_notebook_is_scored_per_kind(tmp_path: Path) -> None:
    (tmp_path / "tiny.json").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    report = evaluate_everyday(tmp_path, eval_settings(embedder="hash"), None, lambda _: None)
    kinds = report["kinds"]
    assert kinds["when"]["date_accuracy"] == 1.0, report["details"][0]
    assert kinds["fact"]["answer_recall"] == 1.0 and kinds["fact"]["citation_precision"] == 1.0
    assert kinds["search"]["search_hit@5"] == 1.0
    # "capex" is only in n2: the first result
    assert kinds["search"]["search_hit@1"] == 1.0, report["details"][2]
    assert kinds["decline"]["decline_rate"] == 1.0, report["details"][3]
    assert report["overall"]["questions"] == 4


def test_a_date_is_stated_in_any_usual_form_and_a_wrong_year_is_not_it() -> None:
    day = date(2026, 3, 13)
    for said in ("Friday, 13 March 2026 [N1].", "due March 13", "13th of Mar", "2026-03-13"):
        assert states_date(said, day), said
    assert not states_date("13 March 2025", day)
    assert not states_date("14 March 2026", day)
