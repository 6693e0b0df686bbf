"""What an evaluation run may vary that production never does.

Production ``Settings`` carry what a deployment chooses; the alternatives the
benchmarks compare (fusions, BM25 variants, keyword feedback, the offline
generator's lexical-only ranking) live here. ``footnote eval`` reads them from
``EVAL_*`` variables, nested with ``__``, e.g.
``EVAL_RANKING__FUSION=rrf EVAL_RANKING__FEEDBACK_TERMS=10 footnote eval retrieval …``;
unset, every run measures what ships.
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict

from footnote.retrieval.variant import SHIPPED, RankingVariant


class EvaluationConfig(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="EVAL_", env_nested_delimiter="__", extra="ignore", frozen=True
    )

    ranking: RankingVariant = SHIPPED
