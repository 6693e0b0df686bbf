"""Settings that point every Google adapter at a ``FakeGoogleApis`` server."""

from __future__ import annotations

from typing import Any

from footnote.config import Settings
from tests.fakes.google_apis import FakeGoogleApis

PROJECT = "footnote-wire-test"
LOCATION = "us-central1"
# Full resource names, as Terraform sets them (google_vertex_ai_index.chunks.id).
INDEX = f"projects/{PROJECT}/locations/{LOCATION}/indexes/1234567890"
INDEX_ENDPOINT = f"projects/{PROJECT}/locations/{LOCATION}/indexEndpoints/987654321"
DEPLOYED_INDEX_ID = "footnote_chunks"
RANKING_CONFIG = f"projects/{PROJECT}/locations/global/rankingConfigs/default_ranking_config"
GROUNDING_CONFIG = f"projects/{PROJECT}/locations/global/groundingConfigs/default_grounding_config"


def vertex_settings(fake: FakeGoogleApis, **env: Any) -> Settings:
    """Production backends (Vertex everywhere) over the in-memory stores, aimed at ``fake``.

    Retries are fast (1–5 ms, a quota waited out for 2 s at most) so failure tests
    stay quick; ``env`` overrides any
    setting by its environment name.
    """
    values: dict[str, Any] = {
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "VERTEX_LOCATION": LOCATION,
        "NOTE_STORE": "memory",
        "REINDEX_QUEUE": "inline",
        "EMBEDDER": "vertex",
        "VECTOR_INDEX": "vertex",
        "GENERATOR": "gemini",
        "CLASSIFIER": "gemini",
        "VERTEX_INDEX": INDEX,
        "VERTEX_INDEX_ENDPOINT": INDEX_ENDPOINT,
        "VERTEX_DEPLOYED_INDEX_ID": DEPLOYED_INDEX_ID,
        "VERTEX_API_ENDPOINT": fake.url,
        "VECTOR_SEARCH_API_ENDPOINT": fake.url,
        "RANKING_API_ENDPOINT": fake.url,
        "GROUNDING_API_ENDPOINT": fake.url,
        "GOOGLE_RETRY_ATTEMPTS": 3,
        "GOOGLE_RETRY_INITIAL_MS": 1,
        "GOOGLE_RETRY_MAX_MS": 5,
        "GOOGLE_QUOTA_WAIT_S": 2,
    }
    values.update(env)
    if INDEX not in fake.indexes:
        fake.deploy(INDEX_ENDPOINT, DEPLOYED_INDEX_ID, INDEX)
    return Settings.model_validate({k: str(v) for k, v in values.items()})
