"""``/chat`` checks a model's claims against all the answer's sources, as the grounding
evaluation does: a name that only another source gives is another person's."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from footnote.domain import QueryAnalysis, Source
from footnote.ports import Generator, Pieces
from tests.inproc import Harness

ALICE = "alice"


class ScriptedModel(Generator):
    """A model stand-in that writes what ``writes`` makes of the sources."""

    model = "scripted-model"

    def __init__(self, writes: Callable[[Sequence[Source]], str]) -> None:
        self.writes = writes

    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        yield self.writes(sources)


def _swapping(sources: Sequence[Source]) -> str:
    """Writes, citing the note that names Joana, that Rui preferred her direction."""
    joana = next(s for s in sources if "Joana" in s.chunk.text)
    rui = next(s for s in sources if "Rui" in s.chunk.text)
    return (
        f"Joana preferred direction A, the wave [{joana.cid}]. "
        f"Rui preferred direction A, the wave [{joana.cid}]. "
        f"Rui hates serif fonts [{rui.cid}]."
    )


def test_chat_removes_a_citation_that_gives_another_sources_person() -> None:
    h = Harness()
    h.container._built["generator"] = ScriptedModel(_swapping)
    joana = h.add_note(ALICE, "Logo round 1: Joana prefers direction A (the wave)")
    rui = h.add_note(ALICE, "Logo feedback: Rui hates serif fonts")
    h.index_all()
    answer = h.ask(ALICE, "Which logo direction and fonts did people prefer?")
    cid = {c["noteId"]: c["cid"] for c in answer["citations"]}
    assert set(cid) == {joana, rui}, answer
    text = answer["answer"]
    assert f"Joana preferred direction A, the wave [{cid[joana]}]" in text, text
    assert f"Rui hates serif fonts [{cid[rui]}]" in text, text
    assert f"Rui preferred direction A, the wave [{cid[joana]}]" not in text, text


def _repeating(sources: Sequence[Source]) -> str:
    """Repeats the name the question gives, which the note it cites does not write."""
    party = next(s for s in sources if "Raclette" in s.chunk.text)
    return f"For the Lindqvist birthday there is raclette from 7pm [{party.cid}]."


def test_chat_keeps_a_name_the_question_gave() -> None:
    h = Harness()
    h.container._built["generator"] = ScriptedModel(_repeating)
    party = h.add_note(ALICE, "Birthday: Raclette from 7pm, gift voucher")
    h.index_all()
    answer = h.ask(ALICE, "What are we doing for the Lindqvist birthday?")
    assert [c["noteId"] for c in answer["citations"]] == [party], answer
    assert "Lindqvist birthday there is raclette" in answer["answer"], answer
