"""The Vertex AI Check Grounding API (Discovery Engine ``GroundedGenerationService.
CheckGrounding``) as the grounder of ``/chat``'s citations.

``GROUNDER=vertex`` turns it on. It is called through the ``google-cloud-discoveryengine``
client (``discoveryengine_v1.GroundedGenerationServiceClient``, REST transport) with
the grounding config ``projects/P/locations/global/groundingConfigs/default_grounding_config``.

One request per claim: the claim is the answer candidate and each cited source a fact
(its note's title, date and text, the date written out so that a resolved relative date
can be supported). With claim-level scores on, the API splits the candidate into
claims, scores each and names the facts that support it (``citation_indices`` into
``cited_chunks``, whose ``source`` is the fact's index). When each claim that needs a
check is supported by some fact, a source's support is the lowest score of the claims
it supports (0 if none: its marker goes); a claim no fact supports leaves the sentence
unsupported; with no claim to check, the overall ``support_score`` is every source's. 429 and
5xx are retried within ``GROUNDING_TIMEOUT_MS``; a failure raises and the answer is
checked by the offline grounder (``grounding_local`` in ``meta.fallbacks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from typing import Any

from footnote.adapters.google_retry import (
    RetryPolicy,
    gapic_client,
    resource_name,
    unavailable_on_sdk_errors,
)
from footnote.config import Settings
from footnote.domain import Source
from footnote.temporal import date_words

GROUNDING_LOCATION = "global"
MAX_FACTS = 200  # facts per request, the API's limit
MAX_FACT_CHARS = 10_000


class VertexGrounder:
    name = "vertex"

    def __init__(
        self,
        client: Any,
        grounding_config: str,
        threshold: float,
        retry: RetryPolicy | None = None,
        timeout_s: float = 3.0,
    ) -> None:
        self._client = client
        self.grounding_config = grounding_config
        self.threshold = threshold
        self._retry = retry or RetryPolicy()
        self._timeout_s = timeout_s

    @classmethod
    def from_settings(cls, s: Settings, credentials: Any = None) -> VertexGrounder:
        from google.cloud import discoveryengine_v1

        endpoint = s.grounding_api_endpoint
        client = gapic_client(
            discoveryengine_v1.GroundedGenerationServiceClient, endpoint, credentials
        )
        return cls(
            client,
            resource_name(s.grounding_config, s.project_id, GROUNDING_LOCATION, "groundingConfigs"),
            s.grounding_threshold,
            RetryPolicy.from_settings(s),
            s.grounding_timeout_ms / 1000,
        )

    def support(
        self,
        claim: str,
        sources: Sequence[Source],
        language: str,
        zone: tzinfo | None,
        others: Sequence[Source] = (),
        asked: str = "",
    ) -> list[float]:
        # (the API reads the claim as a model does: what the question gave it is no
        # fact to check, and the API takes none)
        from google.cloud.discoveryengine_v1 import types

        if not sources:
            return []
        if not claim.strip():
            return [1.0] * len(sources)  # a claim of no words states nothing
        cited = list(sources[:MAX_FACTS])
        request = types.CheckGroundingRequest(
            grounding_config=self.grounding_config,
            answer_candidate=claim.strip(),
            facts=[
                types.GroundingFact(
                    fact_text=_fact_text(s, language, zone),
                    attributes={"cid": s.cid, "noteId": s.chunk.note_id},
                )
                for s in cited
            ],
            grounding_spec=types.CheckGroundingSpec(
                citation_threshold=self.threshold, enable_claim_level_score=True
            ),
        )
        with unavailable_on_sdk_errors("check grounding"):
            response = self._retry.call(
                f"check a claim against {len(cited)} fact(s)",
                lambda: self._client.check_grounding(
                    request=request, retry=None, timeout=self._timeout_s
                ),
                deadline_s=self._timeout_s,
            )
        scores = _per_fact(response, len(cited))
        return scores + [0.0] * (len(sources) - len(cited))


def _fact_text(source: Source, language: str, zone: tzinfo | None) -> str:
    chunk = source.chunk
    written = chunk.created_at.astimezone(zone) if zone else chunk.created_at
    head = f"{chunk.title} ({date_words(written, chunk.text, language)})"
    return f"{head}\n{chunk.text}"[:MAX_FACT_CHARS]


def _per_fact(response: Any, facts: int) -> list[float]:
    """Each fact's support for the candidate. Every claim that needs a check must be
    supported by some fact (else no fact supports the sentence: each gets the weakest
    such claim's score); a fact then lends the lowest score of the claims it supports,
    and 0 if it supports none. With no claim to check, the overall score."""
    fact_of_chunk = {}
    for i, chunk in enumerate(response.cited_chunks):
        try:
            fact_of_chunk[i] = int(chunk.source)
        except (TypeError, ValueError):
            continue
    overall = float(response.support_score) if "support_score" in response else 0.0
    # (a claim says whether it needed a check; unsaid, it did)
    checked = [
        (
            float(c.score) if "score" in c else overall,
            {fact_of_chunk[i] for i in c.citation_indices if i in fact_of_chunk},
        )
        for c in response.claims
        if "grounding_check_required" not in c or c.grounding_check_required
    ]
    if not checked:
        return [round(overall, 4)] * facts
    unsupported = [score for score, by in checked if not by]
    if unsupported:
        return [round(min(unsupported), 4)] * facts
    scores = []
    for fact in range(facts):
        lent = [score for score, by in checked if fact in by]
        scores.append(round(min(lent), 4) if lent else 0.0)
    return scores
