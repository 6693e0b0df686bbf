"""Build the services from settings. Each backend is created on first use, so
a function's cold start imports only what its requests need.

Why this module is over 450 lines: the container is one object by design, each
backend a lazy attribute chosen by the settings, so what a service is built from
is found by reading one class.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from footnote.config import Settings, get_settings

if TYPE_CHECKING:
    from cloudevents.http import CloudEvent

    from footnote.adapters.firestore_events import NoteEvent
    from footnote.adapters.firestore_store import FirestoreStore
    from footnote.api.http import Api
    from footnote.ports import (
        AccountAuth,
        AppCheckVerifier,
        BlobStore,
        Classifier,
        Embedder,
        EmbeddingCache,
        ExportJobStore,
        Generator,
        Grounder,
        IdempotencyStore,
        ImportJobStore,
        IndexSnapshots,
        JobStore,
        QuotaCounter,
        ReindexQueue,
        Reranker,
        Store,
        TenantData,
        TermStatsStore,
        TokenVerifier,
        VectorIndex,
    )
    from footnote.retrieval.corpus import CorpusCache
    from footnote.retrieval.retriever import Retriever
    from footnote.retrieval.variant import RankingVariant
    from footnote.services.accounts import AccountService
    from footnote.services.chat import ChatService
    from footnote.services.exports import ExportService
    from footnote.services.idempotency import IdempotencyService
    from footnote.services.imports import ImportService
    from footnote.services.indexing import IndexingService
    from footnote.services.notes import NotesService
    from footnote.services.quotas import QuotaService
    from footnote.services.reindexing import ReindexService

log = logging.getLogger(__name__)

T = TypeVar("T")


class lazy(Generic[T]):  # lower case: used as a decorator, like property
    """A read-only attribute built once, on first use, under the container's lock.

    Typed by the builder's return annotation, so ``container.store`` is a ``Store``
    to mypy, not ``Any``."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, obj: Container, owner: type | None = None) -> T: ...

    def __get__(self, obj: Container | None, owner: type | None = None) -> lazy[T] | T:
        if obj is None:
            return self
        with obj._lock:
            if self._name not in obj._built:
                obj._built[self._name] = self._build(obj)
            return cast(T, obj._built[self._name])

    def __set__(self, obj: Container, value: T) -> None:
        raise AttributeError(f"{self._name} is built by the container (pass it prebuilt)")


class Container:
    """One per process: the chosen adapter for every port, built lazily."""

    # Embedding-cache entries per tenant (deleted with the account); the benchmarks'
    # disk cache of public corpora keys by content alone.
    cache_per_owner = True

    def __init__(self, settings: Settings | None = None, **prebuilt: Any) -> None:
        """``prebuilt`` supplies ready-made parts by attribute name (e.g. ``store=``),
        so two containers can share a store (tests, model migration)."""
        self.settings = settings or get_settings()
        self._lock = threading.RLock()
        self._built: dict[str, Any] = dict(prebuilt)

    def _firestore(self) -> FirestoreStore:
        """The store, in the Firestore branches: its client is the process's one
        Firestore client, which jobs, quotas and the Firestore indexes share."""
        return cast("FirestoreStore", self.store)

    # -- stores ------------------------------------------------------------------
    @lazy
    def store(self) -> Store:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_store import MemoryStore

            return MemoryStore()
        from footnote.adapters.firestore_store import FirestoreStore, make_client

        s = self.settings
        store = FirestoreStore(make_client(s.project_id, s.firestore_database))
        store.tombstone_retention = timedelta(days=s.tombstone_retention_days)
        return store

    @lazy
    def jobs(self) -> JobStore:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_jobs import MemoryJobStore

            return MemoryJobStore()
        from footnote.adapters.firestore_jobs import FirestoreJobStore

        return FirestoreJobStore(self._firestore().client)

    @lazy
    def embedding_cache(self) -> EmbeddingCache:
        if self.settings.note_store == "memory":
            from footnote.adapters.cached_embedder import MemoryEmbeddingCache

            return MemoryEmbeddingCache()
        from footnote.adapters.firestore_embedding_cache import FirestoreEmbeddingCache

        return FirestoreEmbeddingCache(self._firestore().client)  # one client per process

    # -- models ------------------------------------------------------------------
    @lazy
    def raw_embedder(self) -> Embedder:
        s = self.settings
        if s.embedder == "hash":
            from footnote.adapters.hash_embedder import HashEmbedder

            return HashEmbedder(s.embedding_model_id, s.resolved_embedding_dimension)
        if s.embedder == "vertex":
            from footnote.adapters.vertex_embedder import VertexEmbedder

            return VertexEmbedder.from_settings(s)
        from footnote.adapters.local_embedder import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder(s.embedding_model_id, s.embedding_batch_size)

    @lazy
    def embedder(self) -> Embedder:
        from footnote.adapters.cached_embedder import CachedEmbedder

        return CachedEmbedder(
            self.raw_embedder, self.embedding_cache, per_owner=self.cache_per_owner
        )

    @lazy
    def classifier(self) -> Classifier:
        if self.settings.classifier == "gemini":
            from footnote.adapters.gemini_classifier import GeminiClassifier

            return GeminiClassifier.from_settings(self.settings)
        from footnote.ingest.classify import RuleClassifier

        return RuleClassifier()

    @lazy
    def generator(self) -> Generator:
        if self.settings.generator == "gemini":
            from footnote.adapters.gemini_generator import GeminiGenerator

            return GeminiGenerator.from_settings(self.settings)
        from footnote.generation.quote import QuoteGenerator

        return QuoteGenerator(self.embedder)

    @lazy
    def fallback_generator(self) -> Generator:
        """What answers when the generator fails or is off: the quote answer, with lexical
        support only, so it calls nothing remote (not even the embedder) while the
        model path is what is failing."""
        from footnote.generation.quote import QuoteGenerator

        return QuoteGenerator()

    @lazy
    def grounder(self) -> Grounder:
        if self.settings.grounder == "vertex":
            from footnote.adapters.vertex_grounder import VertexGrounder

            return VertexGrounder.from_settings(self.settings)
        from footnote.grounding import LocalGrounder

        return LocalGrounder(self.embedder)

    @lazy
    def fallback_grounder(self) -> Grounder:
        """What checks citations when the grounding API fails: the offline grounder on
        what must agree and the terms, calling nothing remote (not even the embedder)."""
        from footnote.grounding import LocalGrounder

        return LocalGrounder()

    @lazy
    def reranker(self) -> Reranker:
        if self.settings.reranker == "vertex":
            from footnote.adapters.vertex_ranker import VertexRanker

            return VertexRanker.from_settings(self.settings)
        from footnote.adapters.keep_order_reranker import KeepOrderReranker

        return KeepOrderReranker()

    @lazy
    def decode_note_event(self) -> Callable[[CloudEvent], NoteEvent]:
        """The indexer's Firestore CloudEvent decoder (its payload is a Google protobuf)."""
        from footnote.adapters.firestore_events import decode

        return decode

    # -- retrieval -----------------------------------------------------------------
    @lazy
    def ranking(self) -> RankingVariant:
        """The shipped ranking; the evaluation passes others (``ranking=``)."""
        from footnote.retrieval.variant import SHIPPED

        return SHIPPED

    @lazy
    def corpora(self) -> CorpusCache:
        from footnote.retrieval.bm25 import Bm25Params
        from footnote.retrieval.corpus import CorpusCache, SnapshotPolicy

        s = self.settings
        params = Bm25Params(s.bm25_k1, s.bm25_b, self.ranking.bm25_method)
        policy = SnapshotPolicy(s.index_snapshot_every_changes, s.index_snapshot_every_minutes * 60)
        return CorpusCache(
            self.store, bm25_params=params, snapshots=self.index_snapshots, snapshot_policy=policy
        )

    @lazy
    def index_snapshots(self) -> IndexSnapshots | None:
        """Where tenants' index snapshots are kept: Cloud Storage (the emulator on the
        local stack) when files are; none in a one-process stack, whose corpus cache
        lives as long as its in-memory store."""
        s = self.settings
        if not s.index_snapshots or s.blob_store != "gcs":
            return None
        from footnote.adapters.gcs_snapshots import GcsIndexSnapshots

        return GcsIndexSnapshots(s.project_id, s.blob_bucket)

    @lazy
    def vector_index(self) -> VectorIndex:
        s = self.settings
        if s.vector_index == "vertex":  # Settings refuse it without the index ids
            from footnote.adapters.vertex_vector_index import VertexVectorIndex

            return VertexVectorIndex.from_settings(s, term_stats=self.term_stats)
        from footnote.adapters.memory_vector_index import MemoryVectorIndex

        return MemoryVectorIndex(self.corpora)

    @lazy
    def vector_fallback(self) -> VectorIndex | None:
        """The dense list when Vector Search fails, without a tenant scan: Firestore
        vector search (``find_nearest`` with the tenant pre-filter) over the chunk
        documents; None with the in-memory store, whose own index is exact."""
        s = self.settings
        if s.vector_index != "vertex" or s.note_store == "memory":
            return None
        from footnote.adapters.firestore_vector_index import FirestoreVectorIndex

        return FirestoreVectorIndex(self._firestore().client)

    @lazy
    def term_stats(self) -> TermStatsStore | None:
        """BM25 statistics for the sparse half of Vector Search; None for the in-memory
        index, which computes BM25 over the tenant's chunks itself."""
        s = self.settings
        if s.vector_index != "vertex":
            return None
        from footnote.retrieval.sparse import Sketch

        sketch = Sketch(s.term_stats_sketch_width, s.term_stats_sketch_depth)
        if s.note_store == "memory":
            from footnote.adapters.memory_term_stats import MemoryTermStats

            return MemoryTermStats(sketch)
        from footnote.adapters.firestore_term_stats import FirestoreTermStats

        return FirestoreTermStats(self._firestore().client, sketch, s.term_stats_ttl_s)

    @lazy
    def retriever(self) -> Retriever:
        from footnote.retrieval.retriever import Retriever

        index = self.vector_index
        if index.name == "memory":
            return Retriever(
                self.settings, self.corpora, self.embedder, index, ranking=self.ranking
            )
        # A managed index: no corpus in production (a query reads O(k) documents);
        # the in-memory store keeps one as the stand-in when the index fails.
        corpora = self.corpora if self.settings.note_store == "memory" else None
        return Retriever(
            self.settings,
            corpora,
            self.embedder,
            index,
            chunks=self.store,
            fallback_index=self.vector_fallback,
            ranking=self.ranking,
        )

    # -- services -------------------------------------------------------------------
    @lazy
    def indexing(self) -> IndexingService:
        from footnote.services.indexing import IndexingService

        return IndexingService(
            self.settings,
            self.store,
            self.store,
            self.embedder,
            self.classifier,
            self.vector_index,
            self.term_stats,
            fence=self.tenant_data.is_deleting,
            index_reads_chunk_store=self.settings.vector_index == "memory",
        )

    @lazy
    def queue(self) -> ReindexQueue:
        if self.settings.reindex_queue == "inline":
            from footnote.adapters.pubsub_queue import InlineQueue

            return InlineQueue()
        from footnote.adapters.pubsub_queue import PubSubQueue

        return PubSubQueue(self.settings.project_id, self.settings.reindex_topic)

    @lazy
    def reindexing(self) -> ReindexService:
        from footnote.services.reindexing import ReindexService

        return ReindexService(
            self.indexing,
            self.store,
            self.store,
            self.jobs,
            self.queue,
            self.settings.reindex_page_size,
        )

    @lazy
    def notes(self) -> NotesService:
        from footnote.services.notes import NotesService

        return NotesService(self.settings, self.store, self.store, quotas=self.quotas)

    @lazy
    def clock(self) -> Callable[[], datetime]:
        """What "now" is for the services: the system clock, or (``Container(clock=…)``)
        a fixed or settable one, so evaluations and tests ask questions at a chosen
        moment without rebuilding a service."""
        return lambda: datetime.now(UTC)

    @lazy
    def chat(self) -> ChatService:
        from footnote.services.chat import ChatService

        return ChatService(
            self.settings,
            self.retriever,
            self.generator,
            self.store,
            clock=lambda: self.clock(),
            reranker=self.reranker,
            fallback=self.fallback_generator,
            grounder=self.grounder,
            fallback_grounder=self.fallback_grounder,
        )

    @lazy
    def quota_counter(self) -> QuotaCounter:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_quota import MemoryQuotaCounter

            return MemoryQuotaCounter()
        from footnote.adapters.firestore_quota import FirestoreQuotaCounter

        return FirestoreQuotaCounter(self._firestore().client)

    @lazy
    def quotas(self) -> QuotaService:
        from footnote.services.quotas import QuotaService

        return QuotaService(self.settings, self.quota_counter)

    # -- accounts -------------------------------------------------------------------
    @lazy
    def tenant_data(self) -> TenantData:
        """Every store of a tenant, for account deletion, and the deletion fence."""
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_accounts import MemoryTenantData

            return MemoryTenantData(
                cast(Any, self.store),
                cast(Any, self.quota_counter),
                cast(Any, self.jobs),
                cast(Any, self.embedding_cache),
                cast(Any, self.term_stats),
                idempotency=cast(Any, self.idempotency_store),
                imports=cast(Any, self.import_jobs),
                exports=self.export_jobs,
            )
        from footnote.adapters.firestore_accounts import FirestoreTenantData

        return FirestoreTenantData(self._firestore().client)

    @lazy
    def account_auth(self) -> AccountAuth:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_accounts import MemoryAccountAuth

            return MemoryAccountAuth()
        from footnote.adapters.firebase_accounts import FirebaseAccountAuth

        return FirebaseAccountAuth(self.settings.project_id)

    @lazy
    def account_queue(self) -> ReindexQueue:
        """Deletion (and export) job messages: the accounts topic."""
        if self.settings.reindex_queue == "inline":
            from footnote.adapters.pubsub_queue import InlineQueue

            return InlineQueue()
        from footnote.adapters.pubsub_queue import PubSubQueue

        return PubSubQueue(self.settings.project_id, self.settings.accounts_topic)

    @lazy
    def accounts(self) -> AccountService:
        from footnote.services.accounts import AccountService

        return AccountService(
            self.tenant_data,
            self.vector_index,
            self.account_auth,
            self.account_queue,
            grace_s=self.settings.account_deletion_grace_s,
            blobs=self.blobs,
            uploads=self.import_jobs,
        )

    # -- imports ----------------------------------------------------------------------
    @lazy
    def blobs(self) -> BlobStore:
        if self.settings.blob_store == "memory":
            from footnote.adapters.memory_blobs import MemoryBlobStore

            return MemoryBlobStore()
        from footnote.adapters.gcs_blobs import GcsBlobStore

        return GcsBlobStore(self.settings.project_id, self.settings.blob_bucket)

    @lazy
    def import_jobs(self) -> ImportJobStore:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_imports import MemoryImportJobs

            return MemoryImportJobs()
        from footnote.adapters.firestore_imports import FirestoreImportJobs

        return FirestoreImportJobs(self._firestore().client)

    @lazy
    def imports(self) -> ImportService:
        from footnote.services.imports import ImportService

        return ImportService(
            self.settings,
            self.store,
            self.blobs,
            self.import_jobs,
            self.account_queue,
            self.quotas,
            indexing=lambda: self.indexing,
            fence=self.tenant_data.is_deleting,
            after_import=self._snapshot_tenant if self.index_snapshots is not None else None,
        )

    def _snapshot_tenant(self, tenant_id: str) -> None:
        """The tenant's index, loaded (or patched) here and written as its snapshot."""
        self.corpora.write_snapshot(tenant_id)

    @lazy
    def export_jobs(self) -> ExportJobStore:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_imports import MemoryExportJobs

            return MemoryExportJobs()
        from footnote.adapters.firestore_imports import FirestoreExportJobs

        return FirestoreExportJobs(self._firestore().client)

    @lazy
    def exports(self) -> ExportService:
        from footnote.services.exports import ExportService

        return ExportService(
            self.store, self.blobs, self.export_jobs, self.account_queue, self.quotas, self.clock
        )

    @lazy
    def idempotency_store(self) -> IdempotencyStore:
        if self.settings.note_store == "memory":
            from footnote.adapters.memory_idempotency import MemoryIdempotencyStore

            return MemoryIdempotencyStore()
        from footnote.adapters.firestore_idempotency import FirestoreIdempotencyStore

        return FirestoreIdempotencyStore(self._firestore().client)

    @lazy
    def idempotency(self) -> IdempotencyService:
        from footnote.services.idempotency import IdempotencyService

        return IdempotencyService(self.settings, self.idempotency_store)

    @lazy
    def verifier(self) -> TokenVerifier:
        from footnote.adapters.firebase_auth import FirebaseTokenVerifier

        self.settings.check_safe_to_serve()
        return FirebaseTokenVerifier(
            self.settings.project_id,
            revocation_cache_s=self.settings.auth_revocation_cache_s,
        )

    @lazy
    def api(self) -> Api:
        from footnote.api.http import Api

        return Api(
            self.settings,
            self.verifier,
            lambda: self.notes,
            lambda: self.chat,
            self.health,
            quotas=lambda: self.quotas,
            app_check=self.app_check,
            accounts=lambda: self.accounts,
            idempotency=lambda: self.idempotency,
            imports=lambda: self.imports,
            exports=lambda: self.exports,
        )

    @lazy
    def app_check(self) -> AppCheckVerifier | None:
        if self.settings.app_check != "enforce":
            return None
        from footnote.adapters.firebase_app_check import FirebaseAppCheckVerifier

        return FirebaseAppCheckVerifier(self.settings.project_id)

    def health(self) -> dict[str, Any]:
        s = self.settings
        return {
            "status": "ok",
            "backends": {
                "noteStore": s.note_store,
                "embedder": s.embedder,
                "embeddingModel": s.embedding_model_id,
                "vectorIndex": s.vector_index,
                "generator": s.generator,
                "classifier": s.classifier,
                "reranker": s.reranker,
                "fusion": self.ranking.fusion,
            },
        }


_container: Container | None = None
_container_lock = threading.Lock()


def container() -> Container:
    """The process-wide container, built on first call (never at import)."""
    global _container
    with _container_lock:
        if _container is None:
            from footnote import logs

            _container = Container()
            logs.configure(_container.settings.project_id)
        return _container
