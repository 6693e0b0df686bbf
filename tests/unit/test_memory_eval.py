"""``footnote eval memory`` on a tiny folder in LoCoMo's layout (hash embedder, no model)."""

from __future__ import annotations

import json
from pathlib import Path

from footnote.evaluation.bench import eval_settings
from footnote.evaluation.memory import conversation_notes, evaluate_memory, read_conversation

KEYS = {"session_recall@10", "evidence_recall@8", "f1", "answer_recall", "citation_precision"}


def _conversation() -> dict:  # type: ignore[type-arg]
    return {
        "sample_id": "conv-t",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! Good to see you!"},
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:2",
                    "text": "I went to a LGBTQ support group yesterday and it was so powerful.",
                },
                {"speaker": "Melanie", "dia_id": "D1:3", "text": "Wow, that's cool, Caroline!"},
            ],
            "session_2_date_time": "10:00 am on 25 May, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "I ran a charity race for mental health last Saturday.",
                },
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:2",
                    "text": "The race made me realize that self-care is important.",
                    "blip_caption": "a photo of runners at a finish line",
                },
            ],
            "session_3_date_time": "9:00 am on 1 June, 2023",  # announced, never held
            "session_1_summary": "NEVER INDEXED summary text",
        },
        "event_summary": {"events_session_1": ["NEVER INDEXED event"]},
        "qa": [
            {
                "question": "When did Caroline go to the LGBTQ support group?",
                "answer": "7 May 2023",
                "evidence": ["D1:2"],
                "category": 2,
            },
            {
                "question": "What did Melanie realize after the charity race?",
                "answer": "self-care is important",
                "evidence": ["D2:2"],
                "category": 4,
            },
            {
                "question": "What did Caroline realize after her charity race?",
                "adversarial_answer": "self-care is important",
                "evidence": ["D2:2"],
                "category": 5,
            },
        ],
    }


def test_sessions_become_dated_notes_without_the_annotations(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_conversation()))
    conv = read_conversation(path)
    notes, mapping = conversation_notes(conv, "ten", 2)
    assert [n.created_at.isoformat() for n in notes] == [
        "2023-05-08T13:56:00+00:00",
        "2023-05-08T13:56:00+00:00",
        "2023-05-25T10:00:00+00:00",
    ]
    assert all("NEVER INDEXED" not in n.text for n in notes)
    assert "(shared a photo: a photo of runners at a finish line)" in notes[2].text
    assert mapping.chunk_turns(notes[0].id, notes[0].text) == {"D1:1", "D1:2"}


def test_the_report_has_the_issue_shape_and_scores_dates_and_declines(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(_conversation()))
    report = evaluate_memory(
        tmp_path, eval_settings(embedder="hash"), None, turns_per_note=3, progress=lambda m: None
    )
    assert set(report["overall"]) >= KEYS
    assert set(report["categories"]) == {"1", "2", "3", "4", "5"}
    assert all(set(v) >= KEYS for v in report["categories"].values())
    temporal = report["categories"]["2"]
    assert temporal["session_recall@10"] == 1.0
    assert 0.0 < temporal["f1"] <= 1.0
    assert report["answered_rate"] == 1.0
    # the quoted line's "yesterday" is followed by the day it means
    assert "7 May 2023" in report["details"][0]["answer"], report["details"][0]["answer"]
