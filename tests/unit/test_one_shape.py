"""One shape per message (issue 26): the chat answer and the events of a streamed one
are defined once, as the response models in ``api/schemas.py``, which both write the
JSON and generate ``GET /openapi.json``. These tests keep the three from drifting:
the description, what is written, and the services' results the models are built from.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import create_model

from footnote.api import schemas, wire
from footnote.api.openapi import build_spec
from footnote.domain import MemoryType
from footnote.services.chat import ChatOutcome
from footnote.services.chat import RagConfig as RagOptions
from footnote.services.results import AnswerMeta, RetrievalReport, Stage
from tests.inproc import Harness

SHARED = Path(__file__).resolve().parents[2] / "shared" / "footnote"
# Fields of a service's result that the API does not write (the request log reads them).
NOT_ON_THE_WIRE = {"log_fields"}


@pytest.fixture(scope="module")
def harness() -> Harness:
    h = Harness()
    h.add_note("shape", "We chose Firestore for offline sync.")
    h.add_note("shape", "Revenue grew 12% in March.")
    h.index_all()
    return h


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _same_keys(body: Any, schema: dict[str, Any], spec: dict[str, Any], at: str) -> None:
    """Every object in ``body`` has exactly the properties its schema describes (a
    property may be absent only if the schema says it may be null: written when set)."""
    schema = _resolve(schema, spec)
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b != {"type": "null"}]
        if body is None:
            return
        schema = _resolve(branches[0], spec)
    if isinstance(body, dict) and "properties" in schema:
        props = schema["properties"]
        omitted = set(props) - set(body)
        assert set(body) <= set(props), f"{at}: written, not described: {set(body) - set(props)}"
        assert all(
            {"type": "null"} in _resolve(props[k], spec).get("anyOf", []) for k in omitted
        ), f"{at}: described, not written: {omitted}"
        for key, value in body.items():
            _same_keys(value, props[key], spec, f"{at}.{key}")
    elif isinstance(body, list) and "items" in schema:
        for i, item in enumerate(body):
            _same_keys(item, schema["items"], spec, f"{at}[{i}]")


def _events(text: str) -> list[tuple[str, Any]]:
    out = []
    for block in text.split("\n\n"):
        if block:
            name, data = block.split("\n", 1)
            out.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def test_the_chat_answer_has_exactly_the_keys_the_description_gives(harness: Harness) -> None:
    spec = build_spec(harness.container.settings)
    chat = spec["paths"]["/chat"]["post"]["responses"]["200"]["content"]
    r = harness.call("POST", "/chat", "shape", json={"message": "What did we choose for sync?"})
    body = r.get_json()
    assert body["citations"] and body["meta"]["timings"]
    _same_keys(body, chat["application/json"]["schema"], spec, "ChatResponse")
    # ...and the description of a chat answer is all of it: nothing described is missing.
    meta = _resolve(_resolve(chat["application/json"]["schema"], spec)["properties"]["meta"], spec)
    assert set(meta["properties"]) == set(body["meta"])


def test_each_stream_event_is_its_described_model(harness: Harness) -> None:
    spec = build_spec(harness.container.settings)
    described = spec["paths"]["/chat"]["post"]["responses"]["200"]["content"]["text/event-stream"]
    r = harness.call(
        "POST",
        "/chat",
        "shape",
        json={"message": "How did revenue grow?"},
        headers={"Accept": "text/event-stream"},
    )
    events = _events(r.get_data(as_text=True))
    names = [name for name, _ in events]
    assert names[0] == "meta" and names[-1] == "done" and set(names[1:-1]) == {"delta"}
    assert list(described["x-events"]) == [name for name, _ in schemas.STREAM_EVENTS]
    for name, data in events:
        _same_keys(data, described["x-events"][name], spec, name)
    done = events[-1][1]
    assert set(done) == set(_resolve(described["x-events"]["done"], spec)["properties"])


def _names(cls: Any) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} - NOT_ON_THE_WIRE


def test_models_and_results_share_their_field_names() -> None:
    """The models are built from the results by attribute name: a field on one and not
    the other fails here, with its name, rather than at the first answer."""
    assert _names(ChatOutcome) == set(schemas.ChatResponse.model_fields)
    assert _names(AnswerMeta) == set(schemas.ChatMeta.model_fields)
    assert _names(RetrievalReport) == set(schemas.RetrievalMeta.model_fields)


def test_a_field_added_to_the_result_and_the_model_reaches_the_wire_with_no_mapping(
    harness: Harness,
) -> None:
    """Adding a field to the chat answer touches its model (schemas.ChatMeta) and what
    produces it (the service's AnswerMeta): nothing in between. Shown here with both
    extended by one field, built the way wire.chat builds the real one."""
    outcome = harness.container.chat.chat("shape", "What did we choose?", None, RagOptions())

    @dataclasses.dataclass(frozen=True)
    class AnswerMetaPlus(AnswerMeta):
        answer_language: str = "en"

    meta_plus = create_model("ChatMeta", __base__=schemas.ChatMeta, answer_language=(str, ...))
    response_plus = create_model(
        "ChatResponse", __base__=schemas.ChatResponse, meta=(meta_plus, ...)
    )
    extended = dataclasses.replace(
        outcome, meta=AnswerMetaPlus(**vars(outcome.meta), answer_language="en")
    )
    body = response_plus.model_validate(extended, from_attributes=True).body()
    assert body["meta"]["answerLanguage"] == "en"
    assert {k: v for k, v in body["meta"].items() if k != "answerLanguage"} == (
        wire.chat(outcome)["meta"]
    )
    described = response_plus.model_json_schema(mode="serialization")
    assert "answerLanguage" in described["$defs"]["ChatMeta"]["properties"]


def test_the_api_names_the_timings(harness: Harness) -> None:
    """The services time stages (Stage); the API writes them as <stage>Ms, in order."""
    outcome = harness.container.chat.chat("shape", "Why Firestore?", None, RagOptions())
    assert all(isinstance(stage, Stage) for stage in outcome.meta.timings)
    body = wire.chat(outcome)
    assert list(body["meta"]["timings"]) == [f"{s.value}Ms" for s in outcome.meta.timings]
    assert list(body["meta"]["timings"])[:2] == ["analyzeMs", "retrieveMs"]
    assert list(body["meta"]["timings"].values()) == list(outcome.meta.timings.values())
    assert "totalMs" not in body["meta"]["retrieval"]  # search only


def test_no_wire_names_below_the_api() -> None:
    """Timing names ("generateMs") are made in the API alone: no string literal in the
    services, retrieval or generation is one."""
    found = []
    for folder in ("services", "retrieval", "generation"):
        for path in sorted((SHARED / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and re.fullmatch(r"[a-z]+Ms", node.value)
                ):
                    found.append(f"{path.name}:{node.lineno} {node.value!r}")
    assert not found, found


def test_rag_config_is_the_services_options_with_the_apis_limits() -> None:
    """ragConfig's fields and defaults are the chat service's RagConfig; the request
    model adds only aliases and limits, and hands the options over as they are."""
    model = schemas.RagConfig
    assert set(model.model_fields) == {f.name for f in dataclasses.fields(RagOptions)}
    assert model.model_validate({}).options() == RagOptions()
    sent = model.model_validate(
        {"enableRag": False, "maxSources": 3, "includeCitations": False, "types": ["metric"]}
    )
    assert sent.options() == RagOptions(False, 3, False, (MemoryType.METRIC,))


def test_an_unexpected_failure_is_the_described_error_envelope() -> None:
    """A bug surfaces as 500 in the error envelope (schemas.Error), with the request id."""
    h = Harness()

    def broken() -> Any:
        raise RuntimeError("a bug")

    h.api._chat = broken
    r = h.call("POST", "/chat", "shape", json={"message": "Why?"})
    assert r.status_code == 500
    assert r.get_json() == {
        "error": {
            "code": "internal",
            "message": "internal error",
            "details": {"requestId": r.headers["X-Request-Id"]},
        }
    }
    schemas.Error.model_validate(r.get_json())
