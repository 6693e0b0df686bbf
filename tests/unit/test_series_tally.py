""" "How many…?" over a series of notes that each state the count: added up when things
were done over time, the latest when asked as it stands or when the notes keep a running
total."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.extractive import compose
from footnote.query.analysis import analyze

START = datetime(2026, 7, 4, 13, tzinfo=UTC)
ASKED = datetime(2026, 8, 18, 19, tzinfo=UTC)


def _source(i: int, title: str, text: str) -> Source:
    cid = f"N{i}"
    chunk = Chunk(
        f"{cid}_c",
        f"{cid}_n",
        "t",
        0,
        f"{title}\n\n{text}",
        (),
        MemoryType.NOTE,
        START + timedelta(days=14 * i),
        (),
        "m",
        title,
    )
    return Source(cid, chunk, 1.0)


def _answer(question: str, sources: list[Source]) -> str:
    return compose(question, sources, analyze(question, ASKED))


HARVEST = [
    _source(1, "harvest log", "courgettes 5\ncharlotte 2.1kg\npeas 900g"),
    _source(2, "harvest log", "courgettes 7 (2 are marrows)\nrunner beans 1kg"),
    _source(3, "harvest log", "courgettes 6, beetroot 12"),
    _source(4, "plot jobs", "net the brassicas, weed bed 2"),
]

PREORDERS = [
    _source(1, "xmas preorders", "so far: stollen 14, panettone 6, kits 3"),
    _source(2, "xmas preorders", "stollen 31, panettone 15, kits 7"),
    _source(3, "xmas preorders", "stollen 52 (!!), panettone 22\ncap stollen at 80"),
]


def test_a_count_logged_note_by_note_is_added_up() -> None:
    answer = _answer("how many courgettes have I picked so far?", HARVEST)
    assert answer.startswith("18 in your notes"), answer
    assert "[N1]" in answer and "[N3]" in answer and "[N4]" not in answer


def test_a_running_total_or_a_count_as_it_stands_is_the_latest() -> None:
    for question in ("How many stollen preorders do we have?", "how many stollen sold so far"):
        answer = _answer(question, PREORDERS)
        assert "52" in answer and "[N3]" in answer and "14" not in answer, (question, answer)


def test_a_tally_listed_under_its_heading_is_added_up() -> None:
    pies = [
        _source(
            1,
            "thanksgiving pies",
            "pie orders for thanksgiving:\npumpkin 18\napple 9\npecan 6\npickup sun oct 10, 10-2",
        ),
        _source(2, "pie crust", "all butter crust, 1 disc per pie, chill 2h"),
    ]
    answer = _answer("how many pies did we sell for thanksgiving", pies)
    assert answer.startswith("33 in your notes") and "[N1]" in answer, answer


def test_numbered_notes_are_counted_by_their_highest_number() -> None:
    interviews = [
        _source(1, "interview 15", "P15, retired arborist. 52 min"),
        _source(2, "interview 16", "P16, council worker. saturation? nothing new"),
    ]
    answer = _answer("how many interviews did i end up doing", interviews)
    assert answer.startswith("16 in your notes"), answer


def test_a_series_by_kind_of_note_keeps_apart_what_the_question_names() -> None:
    logs = [
        _source(1, "Obs log - Hendricks farm", "- M42\n- M45\n- M81"),
        _source(2, "Obs log - backyard", "moon, Jupiter"),
        _source(3, "Obs log - Hendricks farm", "M51, M101"),
    ]
    answer = _answer("how many times have i been out to the farm to observe", logs)
    assert answer.startswith("2 in your notes") and "[N2]" not in answer, answer


def test_the_items_of_a_line_each_with_how_many_are_added_up() -> None:
    seeds = _source(
        1, "seed trays", "greenhouse: peppers Ramiro x5, Sweet Banana x4, basil Genovese x8"
    )
    # only the items of the kind asked for: the peppers end where "basil" starts
    answer = _answer("how many pepper plants did i sow", [seeds])
    assert answer.startswith("9 in your notes") and "[N1]" in answer, answer
    # one item of the kind is its count too
    answer = _answer("how many basil plants did i sow", [seeds])
    assert answer.startswith("8 in your notes"), answer
    # a line naming none of it counts in a note about it (its tags are the note's words)
    onions = _source(2, "sets in", "planted Sturon x40 + Red Baron x25 in bed 3. watered in")
    onions = Source(onions.cid, replace(onions.chunk, terms=(*onions.chunk.terms, "onion")), 1.0)
    answer = _answer("how many onion sets did i plant", [onions])
    assert answer.startswith("65 in your notes") and "[N2]" in answer, answer
    # sets of repetitions are no items
    rehab = _source(3, "physio", "clamshells 3x15, bridges 3x10, foam roll daily")
    assert "in your notes" not in _answer("how many clamshells did i do", [rehab])


def test_a_series_of_notes_is_counted_only_when_the_question_names_it() -> None:
    logs = [
        _source(1, "wk log", "heel drops every day except sat (forgot)\nrun 5k easy"),
        _source(2, "wk log", "heel drops 3x15 twice a day\nrun 8k"),
        _source(3, "wk log", "run 6k, bike 40 min"),
    ]
    answer = _answer("how many heel drops am i meant to do", logs)
    assert "3 in your notes" not in answer and "wk log" not in answer, answer
    # written short, the series is still named: "mtg" is a meeting
    meetings = [_source(i, "book club mtg", f"{6 + i} came, Walt sick") for i in (1, 2)]
    assert _answer("how many meetings has walt missed", meetings).startswith("2 in your notes")


def test_names_listed_across_notes_are_counted_each_once() -> None:
    dues = [
        _source(1, "choir dues", "paid so far:\nAnne, Bob K, Carol, Doris"),
        _source(2, "choir", "dues tonight: Jack, Karen, Leo\nsections: S 10, A 9"),
        _source(3, "choir", "dues: Quinn, Rosa, Carol"),
    ]
    answer = _answer("how many people have paid choir dues", dues)
    assert answer.startswith("9 in your notes"), answer
    assert "[N1]" in answer and "[N2]" in answer and "[N3]" in answer, answer


def test_versions_of_one_list_are_no_occasions_the_latest_tells_how_many() -> None:
    versions = [
        _source(1, "guest list v1", "first pass: 122 😬\nmy side 58, Luis side 49"),
        _source(2, "guest list v2", "down to 94. no plus ones"),
        _source(3, "guest list v3", "final-ish: 84\nmy side 40, Luis side 34, friends 10"),
    ]
    answer = _answer("how many guests are we at now", versions)
    assert answer.startswith("final-ish: 84") and "[N3]" in answer, answer


def test_hours_of_one_thing_are_the_hours_written_beside_it_in_short() -> None:
    timesheets = [
        _source(1, "timesheet", "march: 21 hrs demo + 6 hrs marking. Dr Pham says rate is $41/hr"),
        _source(2, "timesheet", "april: 18 hrs demo + 4 hrs marking. submitted"),
    ]
    answer = _answer("how many hours of marking have i done", timesheets)
    assert answer.startswith("10 in your notes"), answer
    assert "[N1]" in answer and "[N2]" in answer
    answer = _answer("how many hours of demo have i done", timesheets)
    assert answer.startswith("39 in your notes"), answer


def test_a_title_s_full_stop_ends_no_sentence_of_a_counted_line() -> None:
    timesheets = [
        _source(1, "timesheet", "march: 21 hrs demo. Dr. Pham: 6 hrs marking"),
        _source(2, "timesheet", "april: 18 hrs demo. Dr. Pham: 4 hrs marking"),
    ]
    answer = _answer("how many hours of marking have i done", timesheets)
    assert answer.startswith("10 in your notes: Dr. Pham: 6 hrs marking [N1]"), answer


def test_a_question_writing_the_unit_short_counts_it() -> None:
    logs = [
        _source(1, "shift log", "worked 6 hrs, quiet"),
        _source(2, "shift log", "worked 7 hrs. busy"),
    ]
    answer = _answer("how many hrs have i worked", logs)
    assert answer.startswith("13 in your notes"), answer
