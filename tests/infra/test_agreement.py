"""Terraform and the function code agree: settings, triggers, topics, entry points,
vector dimensions. Static: parses infra/*.tf and the Python sources, needs no cloud."""

from __future__ import annotations

import ast
import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest

from footnote.adapters import firestore_events
from footnote.config import FUNCTIONS, Settings, deployed_on
from footnote.dev import stack as dev_stack
from tests.infra.tf import (
    INFRA,
    ROOT,
    Terraform,
    attr,
    blocks,
    expression,
    substitute,
    tfvars,
    value,
)

TFVARS = sorted((INFRA / "environments").glob("*.tfvars"))

# What Terraform must set on each function is marked on the setting itself
# (``deployed(...)`` in footnote.config); every unmarked setting's default is its
# production value. The per-user quotas are Terraform variables, so each
# environment states its limits.
SETTINGS = {f.alias or name: f for name, f in Settings.model_fields.items()}
QUOTAS = {alias for alias in SETTINGS if alias.startswith("QUOTA_")}
REQUIRED: dict[str, set[str]] = {
    key: {alias for alias, f in SETTINGS.items() if key in deployed_on(f)} for key in FUNCTIONS
}


def setting_names() -> set[str]:
    return set(SETTINGS)


def literal_settings() -> dict[str, tuple[Any, ...]]:
    out = {}
    for name, f in Settings.model_fields.items():
        if typing.get_origin(f.annotation) is typing.Literal:
            out[f.alias or name] = typing.get_args(f.annotation)
    return out


@pytest.fixture(scope="module")
def tf() -> Terraform:
    return Terraform.read()


def function(tf: Terraform, key: str) -> dict[str, Any]:
    return tf.resource("google_cloudfunctions2_function", key)


def env_of(tf: Terraform, key: str) -> dict[str, Any]:
    service = blocks(function(tf, key), "service_config")[0]
    expr = expression(service["environment_variables"])
    assert expr is not None, f"{key}: environment_variables must reference a local"
    return tf.resolve_map(expr)


def variables_for(tf: Terraform, path: Path | None) -> dict[str, Any]:
    values = {name: attr(body, "default") for name, body in tf.variables.items()}
    values["project_id"] = "footnote-test-project"
    if path is not None:
        values.update(tfvars(path))
    return values


# -- settings ---------------------------------------------------------------------


def test_settings_are_marked_for_functions_that_exist() -> None:
    marks = {name: deployed_on(f) for name, f in Settings.model_fields.items()}
    unknown = {name: m for name, m in marks.items() if set(m) - set(FUNCTIONS)}
    assert not unknown, f"deployed() names no such function: {unknown}"
    # what every function needs: the project, the store and the embedding identity
    assert {"GOOGLE_CLOUD_PROJECT", "EMBEDDER", "VECTOR_INDEX"} <= set.intersection(
        *REQUIRED.values()
    )
    assert QUOTAS and REQUIRED["api"] >= QUOTAS


@pytest.mark.parametrize("key", FUNCTIONS)
def test_terraform_sets_every_setting_the_function_needs(tf: Terraform, key: str) -> None:
    env = env_of(tf, key)
    missing = REQUIRED[key] - env.keys()
    assert not missing, f"{key} needs {sorted(missing)} set in infra/functions.tf"


@pytest.mark.parametrize("key", FUNCTIONS)
def test_terraform_sets_only_settings_the_code_reads(tf: Terraform, key: str) -> None:
    unknown = set(env_of(tf, key)) - setting_names()
    assert not unknown, f"{key}: {sorted(unknown)} are not read by footnote.config.Settings"


@pytest.mark.parametrize("key", FUNCTIONS)
def test_values_come_from_variables_and_resources_not_pasted_ids(tf: Terraform, key: str) -> None:
    literals = literal_settings()
    for name, raw in env_of(tf, key).items():
        if expression(raw) is not None:
            ref = expression(raw) or ""
            assert re.match(r"^(var|local|google_|data\.|tostring\()", ref), f"{name} = {raw}"
            continue
        # A literal is allowed only where the setting is a choice of backend.
        assert name in literals and raw in literals[name], (
            f"{key}: {name} = {raw!r} is pasted; take it from a variable or resource attribute"
        )


@pytest.mark.parametrize("path", [None, *TFVARS], ids=lambda p: p.name if p else "defaults")
@pytest.mark.parametrize("key", FUNCTIONS)
def test_the_settings_validate_as_deployed(tf: Terraform, key: str, path: Path | None) -> None:
    """Settings() accepts each function's environment, for every tfvars file."""
    values = variables_for(tf, path)
    env = {name: substitute(raw, values) for name, raw in env_of(tf, key).items()}
    settings = Settings.model_validate(env)
    assert settings.project_id != Settings.model_fields["project_id"].default
    assert settings.embedder == "vertex" and settings.vector_index == "vertex"
    assert settings.resolved_embedding_dimension == values["embedding_dimension"]


def _field(alias: str) -> Any:
    return next(f for f in Settings.model_fields.values() if f.alias == alias)


@pytest.mark.parametrize("setting", sorted(QUOTAS))
def test_quota_variables_agree_with_the_code(tf: Terraform, setting: str) -> None:
    """Each quota is a typed, validated variable whose default is the code's default
    and whose lower bound is the code's (0 turns a limit off in both)."""
    raw = env_of(tf, "api")[setting]
    ref = re.fullmatch(r"tostring\(var\.(\w+)\)", expression(raw) or "")
    assert ref, f"{setting} = {raw}: pass a number variable through tostring()"
    name = ref.group(1)
    body = tf.variables[name]
    assert attr(body, "type") == "${number}", f"variable {name} must be typed number"
    field = _field(setting)
    assert tf.default(name) == field.default, f"{name}: Terraform and Settings defaults differ"
    ge = next(m.ge for m in field.metadata if getattr(m, "ge", None) is not None)
    condition = attr(blocks(body, "validation")[0], "condition")
    assert f"var.{name} >= {ge}" in condition, condition
    assert f"floor(var.{name}) == var.{name}" in condition, "whole numbers only"
    assert setting not in env_of(tf, "indexer") and setting not in env_of(tf, "reindexer")


@pytest.mark.parametrize("path", TFVARS, ids=lambda p: p.name)
def test_quota_values_in_tfvars_are_accepted_by_the_code(tf: Terraform, path: Path) -> None:
    values = variables_for(tf, path)
    env = {name: substitute(raw, values) for name, raw in env_of(tf, "api").items()}
    settings = Settings.model_validate(env)
    for setting in QUOTAS:
        assert getattr(settings, _field_name(setting)) == int(env[setting])


def test_app_check_variable_offers_exactly_the_codes_choices(tf: Terraform) -> None:
    assert expression(env_of(tf, "api")["APP_CHECK"]) == "var.app_check"
    choices = literal_settings()["APP_CHECK"]
    assert tf.default("app_check") == _field("APP_CHECK").default
    condition = attr(blocks(tf.variables["app_check"], "validation")[0], "condition")
    assert sorted(re.findall(r"['\"](\w+)['\"]", condition)) == sorted(choices), condition


def _field_name(alias: str) -> str:
    return next(n for n, f in Settings.model_fields.items() if f.alias == alias)


def test_functions_agree_on_what_they_all_read(tf: Terraform) -> None:
    """Above all the embedding identity (EMBEDDER, EMBEDDING_MODEL, _DIMENSION, the
    index ids): a note indexed by one function is searched by another."""
    keys = set.intersection(*REQUIRED.values())
    assert {"EMBEDDER", "EMBEDDING_MODEL", "EMBEDDING_DIMENSION", "VERTEX_INDEX"} <= keys
    envs = {k: env_of(tf, k) for k in FUNCTIONS}
    for name in sorted(keys):
        assert len({envs[k][name] for k in FUNCTIONS}) == 1, f"functions disagree on {name}"


# -- vectors ----------------------------------------------------------------------


def test_vector_index_dimensions_match_the_embedding_configuration(tf: Terraform) -> None:
    firestore_index = tf.resource("google_firestore_index", "chunks_embedding_by_tenant")
    fields = blocks(firestore_index, "fields")
    assert attr(fields[0], "field_path") == "tenantId", "the tenant is the pre-filter"
    vector_field = fields[-1]
    assert attr(vector_field, "field_path") == "embedding"
    vector_config = blocks(vector_field, "vector_config")[0]
    assert expression(vector_config["dimension"]) == "var.embedding_dimension"

    vertex = tf.resource("google_vertex_ai_index", "chunks")
    config = blocks(blocks(vertex, "metadata")[0], "config")[0]
    assert expression(config["dimensions"]) == "var.embedding_dimension"
    assert attr(vertex, "index_update_method") == "STREAM_UPDATE"

    assert env_of(tf, "indexer")["EMBEDDING_DIMENSION"] == "${tostring(var.embedding_dimension)}"
    default_dimension = Settings.model_validate({"EMBEDDER": "vertex"}).resolved_embedding_dimension
    assert tf.default("embedding_dimension") == default_dimension
    assert (
        tf.default("embedding_model")
        == Settings.model_validate({"EMBEDDER": "vertex"}).resolved_embedding_model
    )
    for path in TFVARS:
        dimension = tfvars(path).get("embedding_dimension", tf.default("embedding_dimension"))
        assert (
            Settings.model_validate(
                {"EMBEDDER": "vertex", "EMBEDDING_DIMENSION": str(dimension)}
            ).resolved_embedding_dimension
            == dimension
        )


def test_vertex_distance_is_cosine(tf: Terraform) -> None:
    """The code ranks by cosine similarity (footnote.adapters.memory_vector_index):
    DOT_PRODUCT over unit-normalised vectors is cosine."""
    config = blocks(
        blocks(tf.resource("google_vertex_ai_index", "chunks"), "metadata")[0], "config"
    )[0]
    assert expression(config["distance_measure_type"]) == "var.vector_distance"
    assert tf.default("vector_distance") == "DOT_PRODUCT_DISTANCE"
    assert "UNIT_L2_NORM" in str(attr(config, "feature_norm_type"))


def test_the_firestore_fallback_queries_the_terraform_vector_index(tf: Terraform) -> None:
    """FirestoreVectorIndex (the dense list when Vector Search fails) runs find_nearest
    on the fields the composite vector index covers, in the collection the chunk
    store writes, and the chunk store writes those fields."""
    from footnote.adapters import firestore_store, firestore_vector_index
    from tests.factories import chunk

    body = tf.resource("google_firestore_index", "chunks_embedding_by_tenant")
    assert attr(body, "collection") == firestore_vector_index.CHUNKS == firestore_store.CHUNKS
    fields = blocks(body, "fields")
    assert [attr(f, "field_path") for f in fields] == [
        firestore_vector_index.TENANT_FIELD,
        firestore_vector_index.EMBEDDING_FIELD,
    ]
    store = firestore_store.FirestoreStore(None)  # type: ignore[arg-type]  # no client needed
    doc = store._chunk_doc(chunk())
    assert firestore_vector_index.TENANT_FIELD in doc
    assert firestore_vector_index.EMBEDDING_FIELD in doc


def test_hybrid_datapoints_fit_the_vertex_index(tf: Terraform) -> None:
    """Each datapoint's dense part has the index's dimension and unit length (the
    index normalises, DOT_PRODUCT is then the cosine); its sparse part is keyed by
    63-bit term ids (int64 dimensions) and needs no index configuration."""
    from footnote.adapters.hash_embedder import HashEmbedder
    from footnote.adapters.memory_term_stats import MemoryTermStats
    from footnote.adapters.vertex_vector_index import VertexVectorIndex, _datapoint
    from footnote.retrieval.sparse import NoteTerms, chunk_terms, chunk_weights
    from tests.factories import chunk

    config = blocks(
        blocks(tf.resource("google_vertex_ai_index", "chunks"), "metadata")[0], "config"
    )[0]
    assert expression(config["dimensions"]) == "var.embedding_dimension"
    assert "sparse" not in json.dumps(config)  # nothing to configure for the sparse half
    c = chunk("n1_000", "Pricing decision for the launch budget, pricing again.")
    stats = MemoryTermStats()
    stats.record(c.tenant_id, c.note_id, None, NoteTerms.of([chunk_terms(c)]))
    point = _datapoint(c, chunk_weights(c, stats.statistics(c.tenant_id).avgdl, 0.9, 0.4))
    assert len(point.feature_vector) == HashEmbedder().dimension
    assert point.sparse_embedding.dimensions and all(
        0 <= d < 2**63 for d in point.sparse_embedding.dimensions
    )
    assert len(point.sparse_embedding.values) == len(point.sparse_embedding.dimensions)
    assert VertexVectorIndex.search_hybrid.__doc__


def test_term_statistics_fields_are_exempt_from_indexing(tf: Terraform) -> None:
    """The sketch counters and per-note term lists are read by id only; indexed, a
    row of 16,384 counters would hit Firestore's index-entry limit."""
    from footnote.adapters import firestore_term_stats

    body = tf.resource("google_firestore_field", "unindexed_term_stats")
    exempt = {(v["collection"], v["field"]) for v in value(body["for_each"]).values()}
    assert exempt == {
        (firestore_term_stats.ROWS, "df"),
        (firestore_term_stats.NOTES, "termIds"),
        (firestore_term_stats.NOTES, "termDf"),
    }
    assert body.get("index_config") is not None
    overrides = json.loads((ROOT / "firestore.indexes.json").read_text())["fieldOverrides"]
    listed = {(o["collectionGroup"], o["fieldPath"]) for o in overrides if o["indexes"] == []}
    assert exempt <= listed
    width = Settings.model_fields["term_stats_sketch_width"]
    assert max(m.le for m in width.metadata if hasattr(m, "le")) < 20_000  # fields per document


def test_firestore_indexes_json_matches_terraform(tf: Terraform) -> None:
    declared = json.loads((ROOT / "firestore.indexes.json").read_text())
    from_json = set()
    for index in declared["indexes"]:
        fields = []
        for f in index["fields"]:
            if "vectorConfig" in f:
                fields.append((f["fieldPath"], f"vector:{f['vectorConfig']['dimension']}"))
            else:
                fields.append((f["fieldPath"], f["order"]))
        from_json.add((index["collectionGroup"], index["queryScope"], tuple(fields)))
    from_tf = set()
    for body in tf.resources["google_firestore_index"].values():
        fields = []
        for f in blocks(body, "fields"):
            vector = blocks(f, "vector_config")
            if vector:
                fields.append(
                    (attr(f, "field_path"), f"vector:{tf.default('embedding_dimension')}")
                )
            else:
                fields.append((attr(f, "field_path"), attr(f, "order")))
        from_tf.add((attr(body, "collection"), attr(body, "query_scope"), tuple(fields)))
    assert from_json == from_tf
    overrides = {(o["collectionGroup"], o["fieldPath"]) for o in declared["fieldOverrides"]}
    field = tf.resource("google_firestore_field", "unindexed_text")
    collections = re.findall(r"['\"](\w+)['\"]", str(attr(field, "for_each")))
    terms = tf.resource("google_firestore_field", "unindexed_term_stats")
    term_fields = {(v["collection"], v["field"]) for v in value(terms["for_each"]).values()}
    assert overrides == {(c, attr(field, "field")) for c in collections} | term_fields


def test_composite_indexes_cover_the_store_queries(tf: Terraform) -> None:
    """The queries in the Firestore repositories that need a composite index have one."""
    source = "".join(
        (ROOT / f"shared/footnote/adapters/firestore_{name}.py").read_text()
        for name in ("notes", "conversations")
    )
    common = (ROOT / "shared/footnote/adapters/firestore_common.py").read_text()
    # the paged lists: tenantId == …, newest <field> first (FirestoreRepository._keyset)
    assert re.search(
        r'"tenantId", "==", tenant_id\)\)\s*\.order_by\(field, direction=fs\.Query\.DESCENDING\)',
        common,
    )
    assert re.search(r'_keyset\(NOTES, tenant_id, "createdAt"', source)
    assert re.search(r'_keyset\(CONVERSATIONS, tenant_id, "updatedAt"', source)
    assert re.search(r'"conversationId", "==".*?"tenantId", "=="', source, re.S)
    have = {
        (attr(b, "collection"), tuple(attr(f, "field_path") for f in blocks(b, "fields")))
        for b in tf.resources["google_firestore_index"].values()
    }
    assert ("notes", ("tenantId", "createdAt")) in have
    assert ("messages", ("conversationId", "tenantId")) in have
    assert ("conversations", ("tenantId", "updatedAt")) in have
    assert ("noteChunks", ("tenantId", "embedding")) in have
    # the change feed: tenantId == …, oldest changedAt first
    assert re.search(
        r'"tenantId", "==", tenant_id\)\)\s*\.order_by\("changedAt", direction=fs\.Query\.ASCENDING\)',
        source,
    )
    assert ("noteChanges", ("tenantId", "changedAt")) in have


# -- triggers and topics ----------------------------------------------------------


def test_indexer_trigger_matches_what_the_indexer_decodes(tf: Terraform) -> None:
    trigger = blocks(function(tf, "indexer"), "event_trigger")[0]
    assert attr(trigger, "event_type") == firestore_events.EVENT_TYPE
    assert attr(trigger, "retry_policy") == "RETRY_POLICY_RETRY"
    assert expression(trigger["trigger_region"]) == "google_firestore_database.main.location_id"
    filters = {attr(f, "attribute"): f for f in blocks(trigger, "event_filters")}
    assert expression(filters["database"]["value"]) == "google_firestore_database.main.name"
    document = filters["document"]
    assert attr(document, "value") == firestore_events.DOCUMENT_PATTERN
    assert attr(document, "operator") == "match-path-pattern"
    # The dev stack registers the same trigger with the emulator.
    stack_source = Path(dev_stack.__file__).read_text()
    assert f'"eventType": "{firestore_events.EVENT_TYPE}"' in stack_source
    assert f'"value": "{firestore_events.DOCUMENT_PATTERN}"' in stack_source


def test_a_document_matching_the_trigger_pattern_decodes_to_its_note() -> None:
    from cloudevents.http import CloudEvent
    from google.events.cloud.firestore import Document, DocumentEventData

    collection = firestore_events.DOCUMENT_PATTERN.split("/")[0]
    name = f"projects/p/databases/(default)/documents/{collection}/abc123"
    payload = DocumentEventData(value=Document(name=name))
    event = CloudEvent(
        {
            "type": firestore_events.EVENT_TYPE,
            "source": "//firestore.googleapis.com/projects/p",
            "id": "e1",
            "subject": f"documents/{collection}/abc123",
        },
        DocumentEventData.serialize(payload),
    )
    decoded = firestore_events.decode(event)
    assert (decoded.note_id, decoded.kind) == ("abc123", "created")


def test_only_the_indexer_has_an_eventarc_trigger(tf: Terraform) -> None:
    assert blocks(function(tf, "indexer"), "event_trigger")
    assert not blocks(function(tf, "api"), "event_trigger")
    # The re-indexer is pushed to by the subscription in pubsub.tf, which owns dead-lettering.
    assert not blocks(function(tf, "reindexer"), "event_trigger")


def test_reindex_topic_names_match(tf: Terraform) -> None:
    assert tf.default("reindex_topic") == Settings.model_fields["reindex_topic"].default
    topic = tf.resource("google_pubsub_topic", "reindex")
    assert expression(topic["name"]) == "var.reindex_topic"
    assert env_of(tf, "reindexer")["REINDEX_TOPIC"] == "${google_pubsub_topic.reindex.name}"
    values = variables_for(tf, None)
    dead_letter = tf.resource("google_pubsub_topic", "reindex_dead_letter")
    dl_local = expression(dead_letter["name"])
    assert dl_local is not None
    dl_name = substitute(tf.locals[dl_local.split(".")[1]], values)
    assert dl_name == dev_stack.DEAD_LETTER_TOPIC  # the local stack's name for it

    push = tf.resource("google_pubsub_subscription", "reindex_push")
    assert expression(push["topic"]) == "google_pubsub_topic.reindex.id"
    endpoint = blocks(push, "push_config")[0]
    assert expression(endpoint["push_endpoint"]) == (
        "google_cloudfunctions2_function.reindexer.service_config[0].uri"
    )
    policy = blocks(push, "dead_letter_policy")[0]
    assert expression(policy["dead_letter_topic"]) == "google_pubsub_topic.reindex_dead_letter.id"
    assert blocks(push, "retry_policy"), "the push subscription backs off between retries"
    reindexer_timeout = attr(
        blocks(function(tf, "reindexer"), "service_config")[0], "timeout_seconds"
    )
    assert reindexer_timeout < attr(push, "ack_deadline_seconds")
    dl_sub = tf.resource("google_pubsub_subscription", "reindex_dead_letter")
    assert expression(dl_sub["topic"]) == "google_pubsub_topic.reindex_dead_letter.id"


def scheduled_message(tf: Terraform, job: str) -> tuple[str, Any]:
    """A Cloud Scheduler job's Pub/Sub target: its topic and its message as Python."""
    target = blocks(tf.resource("google_cloud_scheduler_job", job), "pubsub_target")[0]
    data = expression(target["data"]) or ""
    payload = re.fullmatch(r"base64encode\(jsonencode\((\{.*\})\)\)", data.replace("\n", " "))
    assert payload, data
    # python-hcl2 renders the HCL object as a Python literal.
    return expression(target["topic_name"]) or "", ast.literal_eval(payload.group(1))


def test_scheduled_sweep_publishes_a_request_the_reindexer_accepts(tf: Terraform) -> None:
    from footnote.services.reindexing import parse_request

    topic, message = scheduled_message(tf, "sweep_unindexed")
    assert topic == "google_pubsub_topic.reindex.id"
    assert parse_request(message).scope == "unindexed"


def test_scheduled_orphan_sweep_publishes_the_sweep_job_on_the_accounts_topic(
    tf: Terraform,
) -> None:
    from footnote.services.accounts import sweep_message

    topic, message = scheduled_message(tf, "sweep_orphaned_accounts")
    assert topic == "google_pubsub_topic.accounts.id"
    assert message == sweep_message()


# -- entry points and identities --------------------------------------------------


def _decorated_functions(path: Path) -> dict[str, str]:
    tree = ast.parse(path.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if (
                    isinstance(dec, ast.Attribute)
                    and isinstance(dec.value, ast.Name)
                    and dec.value.id == "functions_framework"
                ):
                    out[node.name] = dec.attr
    return out


def test_entry_points_exist_with_the_right_signature(tf: Terraform) -> None:
    functions = tf.local_map("functions")
    assert set(functions) == set(FUNCTIONS)
    expected_signature = {"api": "http", "indexer": "cloud_event", "reindexer": "cloud_event"}
    for key in FUNCTIONS:
        declared = _decorated_functions(ROOT / "functions" / key / "main.py")
        entry = functions[key]["entry_point"]
        assert declared.get(entry) == expected_signature[key], (key, entry, declared)
        build = blocks(function(tf, key), "build_config")[0]
        assert expression(build["entry_point"]) == f"local.functions.{key}.entry_point"
        storage = blocks(blocks(build, "source")[0], "storage_source")[0]
        assert expression(storage["object"]) == f'google_storage_bucket_object.source["{key}"].name'
        assert expression(function(tf, key)["name"]) == f"local.functions.{key}.name"


def test_each_function_runs_as_its_own_service_account(tf: Terraform) -> None:
    seen = set()
    for key in FUNCTIONS:
        service = blocks(function(tf, key), "service_config")[0]
        ref = expression(service["service_account_email"])
        assert ref == f'google_service_account.function["{key}"].email'
        seen.add(ref)
    assert len(seen) == 3


def test_source_objects_are_named_by_content_hash(tf: Terraform) -> None:
    obj = tf.resource("google_storage_bucket_object", "source")
    name = attr(obj, "name")
    assert "data.archive_file.source[each.key].output_sha256" in name
    archive = tf.data["archive_file"]["source"]
    assert "var.source_dir" in attr(archive, "source_dir")
    assert tf.default("source_dir") == "../build/functions"


def test_hosting_rewrites_api_to_the_api_function(tf: Terraform) -> None:
    config = json.loads((ROOT / "firebase.json").read_text())
    rewrites = [r for r in config["hosting"]["rewrites"] if r["source"] == "/api/**"]
    assert rewrites, "firebase.json must rewrite /api/** to the API"
    target = rewrites[0].get("function") or rewrites[0].get("run")
    name = target.get("functionId") or target.get("serviceId")
    assert name == tf.local_map("functions")["api"]["name"]
    regions = {tf.default("region"), *(tfvars(p).get("region") for p in TFVARS)} - {None}
    assert regions == {target["region"]}
    assert (ROOT / config["hosting"]["public"] / "index.html").is_file()
    assert (ROOT / config["firestore"]["rules"]).is_file()
    assert (ROOT / config["firestore"]["indexes"]).is_file()


def test_deployed_rules_are_the_tested_rules(tf: Terraform) -> None:
    ruleset = tf.resource("google_firebaserules_ruleset", "firestore")
    files = blocks(blocks(ruleset, "source")[0], "files")[0]
    assert "../firestore.rules" in attr(files, "content")
    release = tf.resource("google_firebaserules_release", "firestore")
    assert attr(release, "name") == "cloud.firestore"
    assert "google_firebaserules_ruleset.firestore.name" in attr(release, "ruleset_name")


def test_a_push_delivery_decodes_to_the_reindex_request() -> None:
    """The push subscription posts Pub/Sub's push body to an HTTP-deployed function;
    functions-framework turns it into the messagePublished CloudEvent the handler reads."""
    import base64

    import flask
    from functions_framework import event_conversion

    from footnote import entrypoints
    from footnote.services.reindexing import parse_request

    message = {"scope": "tenant", "tenantId": "alice"}
    body = {
        "message": {
            "data": base64.b64encode(json.dumps(message).encode()).decode(),
            "messageId": "1",
            "publishTime": "2026-01-01T00:00:00Z",
            "attributes": {},
        },
        "subscription": "projects/p/subscriptions/footnote-reindex-push",
    }
    app = flask.Flask(__name__)
    with app.test_request_context("/", method="POST", json=body):
        event = event_conversion.background_event_to_cloud_event(flask.request)
    assert event["type"] == "google.cloud.pubsub.topic.v1.messagePublished"
    request = parse_request(entrypoints._pubsub_json(event.data))
    assert (request.scope, request.tenant_id) == ("tenant", "alice")


def test_an_import_fails_its_job_before_pubsub_dead_letters_its_message(tf: Terraform) -> None:
    """The delivery after IMPORT_RUNS_PER_MESSAGE runs ends a failing import's job; it
    must come before the last delivery Pub/Sub makes (which counts on a best effort),
    in production and on the local stack, or the job would stay 'running'."""
    from footnote.domain import IMPORT_RUNS_PER_MESSAGE

    push = tf.resource("google_pubsub_subscription", "accounts_push")
    policy = blocks(push, "dead_letter_policy")[0]
    assert expression(policy["max_delivery_attempts"]) == "var.reindex_max_delivery_attempts"
    deliveries = {
        tf.default("reindex_max_delivery_attempts"),
        *(tfvars(p).get("reindex_max_delivery_attempts") for p in TFVARS),
        dev_stack.Stack.max_delivery_attempts,
    } - {None}
    assert deliveries and all(d > IMPORT_RUNS_PER_MESSAGE + 1 for d in deliveries), deliveries
    validation = str(tf.variables["reindex_max_delivery_attempts"])
    assert "reindex_max_delivery_attempts >= 5" in validation  # no deployment allows fewer


def test_scheduled_job_sweep_publishes_the_sweep_job_on_the_accounts_topic(
    tf: Terraform,
) -> None:
    from footnote.services.imports import parse_sweep, sweep_message

    topic, message = scheduled_message(tf, "resume_stalled_imports")
    assert topic == "google_pubsub_topic.accounts.id"
    assert message == sweep_message()
    parse_sweep(message)  # the worker accepts it
