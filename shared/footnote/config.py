"""Every setting Footnote reads, validated in one place.

Defaults run offline: Firestore through its emulator (or the in-memory store),
the local MiniLM embedder, the in-memory vector index and the offline quote
generator. Production switches a port by naming its backend, e.g.
``EMBEDDER=vertex``; nothing else in the code path changes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

# Firebase "demo-*" projects reach only the emulators: the default, and a placeholder
# anywhere else.
PLACEHOLDER_PROJECT_PREFIX = "demo-"


# The deployed functions (infra/functions.tf). A setting marked ``deployed(...)`` has a
# default that is wrong in production (a local backend, a placeholder project, no
# quota chosen), so Terraform must set it on those functions; every other setting's
# default is its production value. tests/infra/test_agreement.py holds Terraform to
# these marks.
FUNCTIONS = ("api", "indexer", "reindexer")


def deployed(*functions: str) -> dict[str, Any]:
    """``json_schema_extra`` of a setting Terraform sets on ``functions`` (default: all)."""
    return {"deployed": list(functions or FUNCTIONS)}


def deployed_on(field: FieldInfo) -> tuple[str, ...]:
    """The functions Terraform must give this setting; () when its default serves."""
    extra = field.json_schema_extra
    marked = extra.get("deployed", []) if isinstance(extra, dict) else []
    return tuple(str(f) for f in marked) if isinstance(marked, list) else ()


class SettingsError(ValueError):
    """Settings the process refuses to start with; the message is one line."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    # --- where we run -------------------------------------------------------
    # Cloud Functions' gen-2 runtimes do not set GOOGLE_CLOUD_PROJECT: Terraform does.
    project_id: str = Field(
        "demo-footnote", alias="GOOGLE_CLOUD_PROJECT", json_schema_extra=deployed(), min_length=1
    )
    location: str = Field("us-central1", alias="VERTEX_LOCATION", json_schema_extra=deployed())
    firestore_database: str = Field(
        "(default)", alias="FIRESTORE_DATABASE", json_schema_extra=deployed()
    )

    # --- which backend serves each port ------------------------------------
    note_store: Literal["firestore", "memory"] = Field(
        "firestore", alias="NOTE_STORE", json_schema_extra=deployed()
    )
    embedder: Literal["local", "hash", "vertex"] = Field(
        "local", alias="EMBEDDER", json_schema_extra=deployed()
    )
    vector_index: Literal["memory", "vertex"] = Field(
        "memory", alias="VECTOR_INDEX", json_schema_extra=deployed()
    )
    generator: Literal["quote", "gemini"] = Field(
        "quote", alias="GENERATOR", json_schema_extra=deployed("api")
    )
    classifier: Literal["rules", "gemini"] = Field(
        "rules", alias="CLASSIFIER", json_schema_extra=deployed("indexer", "reindexer")
    )
    reindex_queue: Literal["pubsub", "inline"] = Field(
        "pubsub", alias="REINDEX_QUEUE", json_schema_extra=deployed("reindexer")
    )

    # --- models --------------------------------------------------------------
    embedding_model: str = Field("", alias="EMBEDDING_MODEL", json_schema_extra=deployed())
    embedding_dimension: int = Field(
        0, alias="EMBEDDING_DIMENSION", json_schema_extra=deployed(), ge=0, le=3072
    )
    embedding_batch_size: int = Field(32, alias="EMBEDDING_BATCH_SIZE", ge=1, le=250)
    chat_model: str = Field("gemini-2.5-flash", alias="CHAT_MODEL", json_schema_extra=deployed())
    chat_temperature: float = Field(0.2, alias="CHAT_TEMPERATURE", ge=0.0, le=2.0)
    chat_timeout_ms: int = Field(20_000, alias="CHAT_TIMEOUT_MS", ge=100)
    chat_max_output_tokens: int = Field(1024, alias="CHAT_MAX_OUTPUT_TOKENS", ge=16)

    # --- Vertex AI Vector Search (used when VECTOR_INDEX=vertex) -------------
    vertex_index: str = Field("", alias="VERTEX_INDEX", json_schema_extra=deployed())
    vertex_index_endpoint: str = Field(
        "", alias="VERTEX_INDEX_ENDPOINT", json_schema_extra=deployed()
    )
    vertex_deployed_index_id: str = Field(
        "", alias="VERTEX_DEPLOYED_INDEX_ID", json_schema_extra=deployed()
    )
    vertex_public_endpoint_domain: str = Field(
        "", alias="VERTEX_PUBLIC_ENDPOINT_DOMAIN", json_schema_extra=deployed()
    )
    vector_search_timeout_ms: int = Field(5_000, alias="VECTOR_SEARCH_TIMEOUT_MS", ge=100)
    # BM25 term statistics for the sparse half (Firestore): each process re-reads a
    # tenant's at most this often; df is a count-min sketch of width x depth counters,
    # one Firestore document per row (docs/vertex.md measures the drift).
    term_stats_ttl_s: float = Field(60.0, alias="TERM_STATS_TTL_S", ge=0)
    term_stats_sketch_width: int = Field(16_384, alias="TERM_STATS_SKETCH_WIDTH", ge=64, le=19_000)
    term_stats_sketch_depth: int = Field(2, alias="TERM_STATS_SKETCH_DEPTH", ge=1, le=4)

    # --- Vertex AI ranking API (Discovery Engine RankService), optional rerank stage
    reranker: Literal["off", "vertex"] = Field("off", alias="RERANKER")
    ranking_model: str = Field("semantic-ranker-default@latest", alias="RANKING_MODEL")
    ranking_config: str = Field("default_ranking_config", alias="RANKING_CONFIG")
    ranking_timeout_ms: int = Field(3_000, alias="RANKING_TIMEOUT_MS", ge=100)

    # --- Google API transport: endpoint overrides (local fakes, PSC) and retries
    # Empty means Google's public endpoint. An ``http://`` override is a local fake:
    # the adapters then send a static token instead of looking up credentials.
    vertex_api_endpoint: str = Field("", alias="VERTEX_API_ENDPOINT")  # genai base URL
    vector_search_api_endpoint: str = Field("", alias="VECTOR_SEARCH_API_ENDPOINT")
    ranking_api_endpoint: str = Field("", alias="RANKING_API_ENDPOINT")
    grounding_api_endpoint: str = Field("", alias="GROUNDING_API_ENDPOINT")
    classifier_model: str = Field("", alias="CLASSIFIER_MODEL")  # empty: CHAT_MODEL
    embedding_timeout_ms: int = Field(30_000, alias="EMBEDDING_TIMEOUT_MS", ge=100)
    google_retry_attempts: int = Field(5, alias="GOOGLE_RETRY_ATTEMPTS", ge=1, le=10)
    google_retry_initial_ms: int = Field(500, alias="GOOGLE_RETRY_INITIAL_MS", ge=0)
    google_retry_max_ms: int = Field(10_000, alias="GOOGLE_RETRY_MAX_MS", ge=0)
    # Writes (embedding chunks, Vector Search upserts) that a quota refuses
    # (RESOURCE_EXHAUSTED) back off for up to this long before the event is handed
    # back for redelivery; under the indexer's 300 s timeout.
    google_quota_wait_s: float = Field(60.0, alias="GOOGLE_QUOTA_WAIT_S", ge=0, le=240)

    # --- limits ---------------------------------------------------------------
    chat_max_query_length: int = Field(2000, alias="CHAT_MAX_QUERY_LENGTH", ge=10)
    note_max_chars: int = Field(100_000, alias="NOTE_MAX_CHARS", ge=100)
    note_title_max_chars: int = Field(300, alias="NOTE_TITLE_MAX_CHARS", ge=1)
    note_max_tags: int = Field(20, alias="NOTE_MAX_TAGS", ge=0)
    request_max_bytes: int = Field(512 * 1024, alias="REQUEST_MAX_BYTES", ge=1024)
    page_size_max: int = Field(100, alias="PAGE_SIZE_MAX", ge=1)

    # --- per-user quotas (services/quotas.py), stored in Firestore; 0 turns one off
    quota_chat_per_minute: int = Field(
        30, alias="QUOTA_CHAT_PER_MINUTE", json_schema_extra=deployed("api"), ge=0
    )
    quota_search_per_minute: int = Field(
        120, alias="QUOTA_SEARCH_PER_MINUTE", json_schema_extra=deployed("api"), ge=0
    )
    quota_notes_per_day: int = Field(
        1000, alias="QUOTA_NOTES_PER_DAY", json_schema_extra=deployed("api"), ge=0
    )
    quota_stored_chars: int = Field(
        10_000_000, alias="QUOTA_STORED_CHARS", json_schema_extra=deployed("api"), ge=0
    )
    # An export reads every note and conversation: a few a day is plenty for a person.
    quota_exports_per_day: int = Field(
        5, alias="QUOTA_EXPORTS_PER_DAY", json_schema_extra=deployed("api"), ge=0
    )
    # Each upload session reserves up to 2 GiB for a week: a person moving an archive
    # needs a few, a script that asks for thousands would fill the bucket.
    quota_uploads_per_day: int = Field(
        20, alias="QUOTA_UPLOADS_PER_DAY", json_schema_extra=deployed("api"), ge=0
    )

    # --- sync and retries (services/idempotency.py, the change feed, token checks)
    # How long an Idempotency-Key answers retries with the first response.
    idempotency_ttl_hours: int = Field(24, alias="IDEMPOTENCY_TTL_HOURS", ge=1, le=24 * 30)
    # How long deletions stay in GET /notes/changes; an older sync token is 410.
    tombstone_retention_days: int = Field(30, alias="TOMBSTONE_RETENTION_DAYS", ge=1, le=365)
    # How long after its commit timestamp a change is surely visible: a sync's last
    # token goes no further than this before the sync started (services/notes.py).
    sync_settle_s: int = Field(30, alias="SYNC_SETTLE_S", ge=0, le=3600)
    # How long an instance trusts a user's account state (deleted, disabled, tokens
    # revoked) for reads; writes always ask Firebase Auth. 0: every request asks.
    auth_revocation_cache_s: int = Field(60, alias="AUTH_REVOCATION_CACHE_S", ge=0, le=3600)

    # --- chunking ---------------------------------------------------------------
    chunk_size: int = Field(450, alias="CHUNK_SIZE", ge=50, le=8000)
    chunk_overlap: int = Field(75, alias="CHUNK_OVERLAP", ge=0)

    # --- retrieval ----------------------------------------------------------------
    retrieval_top_k: int = Field(30, alias="RETRIEVAL_TOP_K", ge=1, le=500)
    retrieval_rerank_to: int = Field(8, alias="RETRIEVAL_RERANK_TO", ge=1, le=50)
    # The fusion itself, the BM25 variant and keyword feedback are not settings: the
    # evaluation compares their alternatives (footnote.retrieval.variant).
    # hybrid fusion: alpha · dense + (1 - alpha) · keyword, each z-scored within its list
    hybrid_alpha: float = Field(0.6, alias="RETRIEVAL_HYBRID_ALPHA", ge=0, le=1)
    # BM25 (bm25s): term-frequency saturation k1, length normalisation b, in memory and
    # in Vector Search's sparse half alike. k1 0.9 / b 0.4 (Anserini's BEIR setting)
    # beat bm25s' 1.5 / 0.75 on SciFact train, alone and in the hybrid (docs/quality.md).
    bm25_k1: float = Field(0.9, alias="RETRIEVAL_BM25_K1", ge=0)
    bm25_b: float = Field(0.4, alias="RETRIEVAL_BM25_B", ge=0, le=1)
    # recency's share in every fusion; 0 leaves recency out of the ranking
    weight_recency: float = Field(0.15, alias="RETRIEVAL_WEIGHT_RECENCY", ge=0)
    # MMR's balance of relevance against likeness to what is picked; 1: relevance order
    # less near-duplicates. Likeness is not redundancy here: the notes of one series
    # (weekly syncs, monthly logs, a negotiation over several calls) are alike, the one
    # a question asks about is often the second, and a list or count question needs them
    # all. 0.7 -> 1: everyday written-apart set context@3 0.911 -> 0.935 (@1, @8 and the
    # public set unchanged), SciFact nDCG@10 0.8431 -> 0.8457, LoCoMo session R@10
    # 0.915 -> 0.917 (evidence R@8 0.758 -> 0.757); diversity among one note's chunks
    # alone cost LoCoMo evidence R@8 0.028 (docs/quality.md).
    mmr_lambda: float = Field(1.0, alias="RETRIEVAL_MMR_LAMBDA", ge=0, le=1)
    # a chunk this close to one already picked is the same text again (a trailing period:
    # 0.99); notes of one series are not ("timesheet / march: … 6 hrs marking" and "…
    # april: … 4 hrs marking": 0.953 under MiniLM, and 0.95 dropped one). 0.98 changed no
    # answer of the everyday sets, HotpotQA or LoCoMo (docs/quality.md).
    near_duplicate_threshold: float = Field(0.98, alias="RETRIEVAL_NEAR_DUPLICATE", ge=0, le=1)
    min_similarity: float = Field(0.2, alias="RETRIEVAL_MIN_SIMILARITY", ge=-1, le=1)
    min_confidence: float = Field(0.3, alias="RETRIEVAL_MIN_CONFIDENCE", ge=0, le=1)
    # A dated question whose window holds nothing relevant is asked again of the notes
    # written up to this many days after it: people write about a day after it
    # ("yesterday I got accepted…"). LoCoMo session recall@10 0.892 -> 0.899; 0 turns it off.
    window_grace_days: int = Field(7, alias="RETRIEVAL_WINDOW_GRACE_DAYS", ge=0, le=60)
    context_max_chunks: int = Field(12, alias="CONTEXT_MAX_CHUNKS", ge=1)
    context_max_chars: int = Field(12_000, alias="CONTEXT_MAX_CHARS", ge=500)

    # --- citations: each sentence's support by the sources it cites ---------------
    # local: numbers, dates, names and negation must agree, then term overlap and
    # embedding similarity (grounding.py); vertex: the Check Grounding API
    # (Discovery Engine), with the local grounder as its fallback.
    grounder: Literal["local", "vertex"] = Field("local", alias="GROUNDER")
    # A citation is kept at this claim-level score or above (Check Grounding's
    # citation threshold; the local grounder's scale is calibrated to the same 0.6).
    grounding_threshold: float = Field(0.6, alias="GROUNDING_THRESHOLD", ge=0, le=1)
    grounding_config: str = Field("default_grounding_config", alias="GROUNDING_CONFIG")
    grounding_timeout_ms: int = Field(3_000, alias="GROUNDING_TIMEOUT_MS", ge=100)

    # --- re-indexing --------------------------------------------------------------
    reindex_topic: str = Field(
        "footnote-reindex",
        alias="REINDEX_TOPIC",
        json_schema_extra=deployed("reindexer"),
        min_length=3,
    )
    reindex_page_size: int = Field(50, alias="REINDEX_PAGE_SIZE", ge=1, le=500)

    # Account deletion and export jobs (services/accounts.py): their Pub/Sub topic, and
    # how long the deletion waits after its fence for work that began before it (the
    # longest function timeout that can write for a tenant: the indexer's 300 s).
    accounts_topic: str = Field(
        "footnote-accounts",
        alias="ACCOUNTS_TOPIC",
        json_schema_extra=deployed("api", "reindexer"),
        min_length=3,
    )
    account_deletion_grace_s: float = Field(330.0, alias="ACCOUNT_DELETION_GRACE_S", ge=0, le=480)

    # --- files: uploads to import (services/imports.py) ------------------------------
    # "gcs": Cloud Storage, the bucket below (the Storage emulator when
    # STORAGE_EMULATOR_HOST is set); "memory": in process, for one-process stacks.
    blob_store: Literal["memory", "gcs"] = Field(
        "memory", alias="BLOB_STORE", json_schema_extra=deployed("api", "reindexer")
    )
    blob_bucket: str = Field(
        "", alias="BLOB_BUCKET", json_schema_extra=deployed("api", "reindexer")
    )
    # --- index snapshots (retrieval/snapshot.py) ---------------------------------------
    # Each tenant's in-memory index, kept as one file in the bucket above when files
    # are kept in Cloud Storage (BLOB_STORE=gcs), so a cold instance loads it instead
    # of every chunk. A new one is written after a full load, then once this many
    # notes changed, or this many minutes passed with any change.
    index_snapshots: bool = Field(True, alias="INDEX_SNAPSHOTS")
    index_snapshot_every_changes: int = Field(
        200, alias="INDEX_SNAPSHOT_EVERY_CHANGES", ge=1, le=1_000_000
    )
    index_snapshot_every_minutes: float = Field(
        10.0, alias="INDEX_SNAPSHOT_EVERY_MINUTES", gt=0, le=24 * 60
    )
    # An archive sent in the body of POST /imports (bigger ones are uploaded to the
    # bucket first): under Cloud Run's 32 MiB request limit.
    import_upload_max_bytes: int = Field(
        30 * 1024 * 1024, alias="IMPORT_UPLOAD_MAX_BYTES", ge=1024, le=32 * 1024 * 1024
    )

    # --- HTTP -----------------------------------------------------------------------
    cors_origins: str = Field("*", alias="CORS_ORIGINS", json_schema_extra=deployed("api"))
    # Firebase App Check on every authenticated route (X-Firebase-AppCheck header):
    # "enforce" refuses requests without a valid token (scripts, other apps).
    app_check: Literal["off", "enforce"] = Field(
        "off", alias="APP_CHECK", json_schema_extra=deployed("api")
    )

    # --- where the process runs (read, never set by us) ------------------------------
    # With FIREBASE_AUTH_EMULATOR_HOST set, firebase-admin accepts unsigned tokens naming
    # any user: allowed only for Firebase demo projects (ids "demo-*", which cannot reach
    # real resources) and never on Cloud Run / Cloud Functions (K_SERVICE is set there).
    auth_emulator_host: str = Field("", alias="FIREBASE_AUTH_EMULATOR_HOST")
    cloud_run_service: str = Field("", alias="K_SERVICE")

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("CHUNK_OVERLAP must be smaller than CHUNK_SIZE")
        # Refused, not worked around: a silent in-memory stand-in for Vector Search
        # would answer from one instance's memory and skip every index write.
        if self.vector_index == "vertex" and self.vector_search_missing:
            raise ValueError(
                f"VECTOR_INDEX=vertex needs {', '.join(self.vector_search_missing)} "
                "(the Vector Search index, its endpoint and deployed index id)"
            )
        if self.blob_store == "gcs" and not self.blob_bucket:
            raise ValueError("BLOB_STORE=gcs needs BLOB_BUCKET (the uploads bucket)")
        if self.project_id.startswith(PLACEHOLDER_PROJECT_PREFIX) and self.cloud_run_service:
            # Deployed (Cloud Run and Cloud Functions set K_SERVICE) with the default or
            # another demo-* id: every Google call would go to a project that is not ours.
            raise ValueError(
                f"GOOGLE_CLOUD_PROJECT is the placeholder {self.project_id!r} outside the "
                "emulator (K_SERVICE is set): deploy with the real project id"
            )
        return self

    def check_safe_to_serve(self) -> None:
        """Refuse to serve requests with settings that would accept forged tokens.

        Called where tokens are verified (the API's start-up, the token verifier),
        not in the validator: tests build production-shaped settings in processes
        that run the emulators."""
        if self.auth_emulator_host and (
            self.cloud_run_service or not self.project_id.startswith(PLACEHOLDER_PROJECT_PREFIX)
        ):
            raise ValueError(
                "FIREBASE_AUTH_EMULATOR_HOST is set outside the emulator (project "
                f"{self.project_id!r}{', on Cloud Run' if self.cloud_run_service else ''}): "
                "it would accept unsigned tokens for any user. Unset it, or use a "
                "demo-* project locally."
            )

    @property
    def vector_search_missing(self) -> list[str]:
        """The Vector Search settings VECTOR_INDEX=vertex needs and does not have."""
        return [
            name
            for name, value in (
                ("VERTEX_INDEX", self.vertex_index),
                ("VERTEX_INDEX_ENDPOINT", self.vertex_index_endpoint),
                ("VERTEX_DEPLOYED_INDEX_ID", self.vertex_deployed_index_id),
            )
            if not value
        ]

    @property
    def resolved_embedding_model(self) -> str:
        if self.embedding_model:
            return self.embedding_model
        return {
            "local": "all-MiniLM-L6-v2",
            "hash": "hash-v1",
            "vertex": "gemini-embedding-001",
        }[self.embedder]

    @property
    def resolved_embedding_dimension(self) -> int:
        if self.embedding_dimension:
            return self.embedding_dimension
        return {"local": 384, "hash": 256, "vertex": 768}[self.embedder]

    @property
    def embedding_model_id(self) -> str:
        """Identity of the vectors: backend, model and dimension. A change re-indexes."""
        return (
            f"{self.embedder}:{self.resolved_embedding_model}:{self.resolved_embedding_dimension}"
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment once; invalid settings
    raise SettingsError with one line naming each problem."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(one_line(exc)) from None


def one_line(exc: ValidationError) -> str:
    """``invalid settings: NAME: problem; …`` (pydantic's text spans several lines)."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        problems.append(f"{where}: {message}" if where else message)
    return "invalid settings: " + "; ".join(problems)
