"""Follow-up questions through /chat with a conversationId read the earlier turns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from footnote.domain import Note
from footnote.generation.prompt import NOT_ENOUGH
from footnote.query.analysis import analyze, is_follow_up, with_previous
from footnote.query.follow_ups import with_person_answered
from tests.inproc import Harness

NOW = datetime(2026, 11, 23, tzinfo=UTC)


def _world(notes: list[tuple[str, datetime]]) -> Harness:
    h = Harness()
    for i, (text, when) in enumerate(notes):
        h.store.create_note(Note(f"n{i}", "alice", text, when, when))
    h.index_all()
    return h


def _ask(h: Harness, message: str, conversation: str | None = None) -> dict[str, Any]:
    return h.ask("alice", message, conversation)


def _cited(reply: dict[str, Any]) -> set[str]:
    return {c["noteId"] for c in reply["citations"]}


def test_a_pronoun_follow_up_inherits_the_person_asked_about() -> None:
    h = _world(
        [
            ("Caroline went to the LGBTQ support group downtown and found it powerful.", NOW),
            ("Melanie painted a lake sunrise and hung it in the kitchen.", NOW),
            ("Melanie took the kids camping at the lake in June.", NOW),
        ]
    )
    first = _ask(h, "Which group did Caroline go to downtown?")
    assert _cited(first) == {"n0"}
    follow = _ask(h, "Where did she find it powerful?", first["conversationId"])
    assert _cited(follow) == {"n0"}, follow["answer"]
    assert follow["meta"]["followUp"] is True
    # The same words with no conversation behind them are read alone: no earlier subject
    # is inherited (that the one note holding "found it powerful" may still answer them
    # is the words' doing, not the conversation's).
    alone = _ask(h, "Where did she find it powerful?")
    assert alone["meta"]["followUp"] is False


def test_an_elliptical_follow_up_inherits_the_time_window() -> None:
    march, june = datetime(2026, 3, 10, tzinfo=UTC), datetime(2026, 6, 10, tzinfo=UTC)
    h = _world(
        [
            ("Pro plan price set at 20 dollars a month.", march),
            ("Team plan stays free for up to five seats.", march),
            ("Pro plan price raised to 25 dollars a month.", june),
            ("Team plan now costs 10 dollars per seat.", june),
        ]
    )
    first = _ask(h, "What was the Pro plan price in March?")
    assert _cited(first) == {"n0"}, first["answer"]
    follow = _ask(h, "And the Team plan?", first["conversationId"])
    assert "n1" in _cited(follow) and not _cited(follow) & {"n2", "n3"}, follow["answer"]
    assert "Team plan stays free for up to five seats" in follow["answer"]
    assert "free" in follow["answer"] and "10 dollars" not in follow["answer"]
    # asked on its own, the June note is as good an answer as the March one
    alone = _ask(h, "And the Team plan?")
    assert "n3" in _cited(alone) or alone["answer"] == NOT_ENOUGH


def test_a_follow_up_naming_someone_else_swaps_the_person() -> None:
    h = _world(
        [
            ("Caroline painted a portrait of her grandmother.", NOW),
            ("Melanie painted a lake sunrise last year.", NOW),
        ]
    )
    first = _ask(h, "What did Caroline paint?")
    assert _cited(first) == {"n0"}
    follow = _ask(h, "What about Melanie?", first["conversationId"])
    assert _cited(follow) == {"n1"}, follow["answer"]


def test_follow_up_detection() -> None:
    def follows(text: str) -> bool:
        return is_follow_up(text, analyze(text, NOW))

    assert follows("And in June?")
    assert follows("When did she go there?")
    assert follows("What about Melanie?")
    assert not follows("What did Caroline research about adoption agencies?")
    merged = with_previous(analyze("And the Team plan?", NOW), analyze("Pro plan in March", NOW))
    assert merged.window is not None and merged.window.label == "in march"
    assert merged.keywords[:2] == ("team", "plan")


def test_a_pronoun_after_a_who_question_stands_for_the_person_answered() -> None:
    assert (
        with_person_answered(
            "what did i buy him", "who did i get for secret santa", "I got Tomás. €15 limit [N1]."
        )
        == "what did i buy Tomás"
    )
    assert (
        with_person_answered("whats her number", "who is the plumber", "Kev Walsh, bathroom [N1].")
        == "whats Kev Walsh's number"
    )
    # not after a question asking for something else, nor when the answer names several
    assert with_person_answered("when does she start", "what did we hire", "Sam said yes") is None
    assert with_person_answered("what did she say", "who did i meet", "Ana and Tom [N1]") is None


def test_a_follow_up_about_the_person_answered_is_answered_of_them() -> None:
    h = _world(
        [
            ("Helped at the bake sale: Mia did the till, Omar set up the tables.", NOW),
            ("valentines day: Mia covered the counter all day.", NOW),
            ("paid Mia $18/hr for valentines. Omar is on $16/hr.", NOW),
        ]
    )
    first = _ask(h, "who covered the counter on valentines day?")
    assert "Mia" in first["answer"], first["answer"]
    follow = _ask(h, "how much did we pay her?", first["conversationId"])
    assert follow["meta"]["followUp"] is True
    assert "Mia" in follow["answer"], follow["answer"]
