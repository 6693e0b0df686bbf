"""The offline grounder: what must agree, term overlap and embedding similarity.

The rules are ``footnote.generation.grounding``'s; this adapter reads each source's
facts once (an LRU keyed by the passage) and embeds the claim and the source's lines
only when the terms alone do not already show full support (a quoted line does).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from datetime import tzinfo

from footnote.domain import Source
from footnote.generation.grounding import (
    SourceFacts,
    cosine,
    disagreement,
    lexical_support,
    similarity_support,
    source_facts,
)
from footnote.ports import Embedder


class LocalGrounder:
    name = "local"

    def __init__(self, embedder: Embedder | None = None, threshold: float = 0.4) -> None:
        # Without an embedder (the fallback while a remote model is failing), support
        # is the terms' alone.
        self._embedder = embedder
        self.threshold = threshold

    def support(
        self,
        claim: str,
        sources: Sequence[Source],
        language: str,
        zone: tzinfo | None,
        others: Sequence[Source] = (),
    ) -> list[float]:
        known = frozenset().union(*(_facts(o, language, zone).names for o in others))
        scores = []
        for source in sources:
            facts = _facts(source, language, zone)
            if disagreement(claim, facts, language, known) is not None:
                scores.append(0.0)
                continue
            lexical = lexical_support(claim, facts, language)
            if lexical < 1.0 and self._embedder is not None:
                lexical = max(lexical, similarity_support(self._similarity(claim, facts)))
            scores.append(lexical)
        return scores

    def _similarity(self, claim: str, facts: SourceFacts) -> float:
        """The claim's embedding cosine with the source's closest line (or whole text)."""
        assert self._embedder is not None
        texts = [claim, facts.text, *facts.lines]
        first, *rest = self._embedder.embed_documents(texts)
        return max(cosine(first, v) for v in rest)


_FACTS_KEPT = 1024
_facts_seen: OrderedDict[tuple[object, ...], SourceFacts] = OrderedDict()


def _facts(source: Source, language: str, zone: tzinfo | None) -> SourceFacts:
    """A source's facts, read once per passage, language and zone (a bounded LRU)."""
    chunk = source.chunk
    key = (chunk.chunk_id, chunk.text, chunk.title, chunk.created_at, language, zone)
    facts = _facts_seen.get(key)
    if facts is None:
        facts = _facts_seen[key] = source_facts(source, language, zone)
        if len(_facts_seen) > _FACTS_KEPT:
            _facts_seen.popitem(last=False)
    else:
        _facts_seen.move_to_end(key)
    return facts
