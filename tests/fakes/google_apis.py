"""One local HTTP server that speaks the REST wire protocol of the Google APIs Footnote uses.

- Vertex AI models (google-genai, ``vertexai=True``):
  ``POST /{v1,v1beta1}/projects/P/locations/L/publishers/google/models/M:predict``
  (text embeddings), ``…:generateContent`` and ``…:streamGenerateContent?alt=sse``.
- Vertex AI Vector Search (aiplatform_v1 REST transport):
  ``POST /v1/projects/P/locations/L/indexes/I:upsertDatapoints`` / ``:removeDatapoints``
  and ``POST /v1/projects/P/locations/L/indexEndpoints/E:findNeighbors``; the fake
  keeps the datapoints (dense ``featureVector``, ``sparseEmbedding`` or both: hybrid)
  and answers each query exactly, applying ``restricts`` and ``numericRestricts``
  the way the service does: a dense query by dot product (``distance``), a
  sparse-only query (token-based search) by sparse dot product over the datapoints
  that have a sparse embedding (``sparseDistance``), and a query with both and
  ``rrf.alpha`` by reciprocal-rank fusion of the two rankings,
  ``alpha / (60 + dense rank) + (1 − alpha) / (60 + sparse rank)`` (alpha 1: dense
  only, 0: sparse only, as documented; the service does not publish its constant,
  60 is the usual one). ``returnFullDatapoint`` returns each neighbour's vectors and
  restricts as stored.
- Discovery Engine ranking: ``POST /v1/projects/P/locations/L/rankingConfigs/C:rank``.
- Discovery Engine grounding:
  ``POST /v1/projects/P/locations/L/groundingConfigs/C:check``. The candidate is split
  into claims at sentence ends; a claim's score is the largest share of its words one
  fact holds (or ``grounding_scores``), and the facts at or above the citation
  threshold are its citations (``citedChunks``, ``source`` = the fact's index).

Every request is recorded (path, headers, JSON body) so tests can assert on what
was sent. Failures are scriptable per route: ``fake.fail("predict", 429, times=2)``
answers 429 twice and then succeeds; ``times=None`` fails for good;
``fake.delay("generate", 2.0)`` holds responses (to trigger client timeouts).
Errors use Google's JSON error envelope, so the SDKs raise their real exceptions.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}

_MODEL = re.compile(
    r"^/(?P<version>v1|v1beta1)/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
    r"/publishers/google/models/(?P<model>[^/:]+):(?P<method>predict|generateContent|streamGenerateContent)$"
)
_INDEX = re.compile(
    r"^/v1/(?P<index>projects/[^/]+/locations/[^/]+/indexes/[^/:]+):(?P<method>upsertDatapoints|removeDatapoints)$"
)
_FIND = re.compile(
    r"^/v1/(?P<endpoint>projects/[^/]+/locations/[^/]+/indexEndpoints/[^/:]+):findNeighbors$"
)
_CHECK = re.compile(
    r"^/v1/(?P<config>projects/[^/]+/locations/[^/]+/groundingConfigs/[^/:]+):check$"
)
_RANK = re.compile(r"^/v1/(?P<config>projects/[^/]+/locations/[^/]+/rankingConfigs/[^/:]+):rank$")
_OPS = {1: "LESS", 2: "LESS_EQUAL", 3: "EQUAL", 4: "GREATER_EQUAL", 5: "GREATER", 6: "NOT_EQUAL"}


@dataclass
class Recorded:
    route: str  # predict | generate | stream | upsert | remove | find | rank | check
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Datapoint:
    id: str
    vector: list[float]
    restricts: dict[str, tuple[set[str], set[str]]]  # namespace -> (allow, deny)
    numeric: dict[str, float]
    sparse: dict[int, float] = field(default_factory=dict)  # dimension -> value
    raw: dict[str, Any] = field(default_factory=dict)  # as upserted (returnFullDatapoint)


@dataclass
class _Failure:
    status: int
    remaining: int | None  # None: forever


def fake_embedding(text: str, dimension: int, task: str = "") -> list[float]:
    """A deterministic embedding where texts sharing words are similar (like a real model,
    crudely): hashed bag of lower-cased word stems, plus a tiny task-type signature."""
    vector = [0.0] * dimension
    words = re.findall(r"[a-z0-9]+", text.lower()) or ["\0"]
    for word in words:
        stem = word[:5]
        digest = hashlib.blake2b(stem.encode(), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dimension
        vector[slot] += 1.0 if digest[4] & 1 else -1.0
    if task:
        slot = int.from_bytes(hashlib.blake2b(task.encode(), digest_size=4).digest(), "little")
        vector[slot % dimension] += 0.01
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def default_answer(body: dict[str, Any]) -> str:
    """A well-behaved "model": restate the first sentence of each of the first two
    sources with its citation marker; say so when there are none."""
    prompt = "".join(
        p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", [])
    )
    blocks = re.findall(r'<source id="(N\d+)"[^>]*>\n(.*?)\n</source>', prompt, re.S)
    if not blocks:
        return "I don't have enough information in your notes to answer that."
    out = []
    for cid, text in blocks[:2]:
        first = re.split(r"(?<=[.!?])\s+", text.strip())[0].rstrip(".!?")
        out.append(f"{first} [{cid}].")
    return " ".join(out)


def default_reading(body: dict[str, Any]) -> dict[str, Any]:
    """A structured reading of a follow-up (``response_schema``): the last message as
    the standalone question, and nothing else read."""
    prompt = "".join(
        p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", [])
    )
    last = prompt.rsplit("Last message:", 1)[-1].strip()
    return {"question": last}


@dataclass
class FakeGoogleApis:
    """Start with ``with FakeGoogleApis() as fake:``; ``fake.url`` is ``http://127.0.0.1:PORT``."""

    dimension_limit: int = 3072
    answer: Callable[[dict[str, Any]], str] = default_answer
    # the JSON object a structured call (responseMimeType application/json) replies with
    read: Callable[[dict[str, Any]], Any] = default_reading
    classify: Callable[[str], str] | None = None  # the text x.enum reply for a classification
    # scores for ranking records (query, records) -> {id: score}; default: word overlap
    rank_scores: Callable[[str, list[dict[str, Any]]], dict[str, float]] | None = None
    # scores for grounding (claim, fact texts) -> a score per fact; default: word overlap
    grounding_scores: Callable[[str, list[str]], list[float]] | None = None
    requests: list[Recorded] = field(default_factory=list)
    indexes: dict[str, dict[str, Datapoint]] = field(default_factory=dict)
    deployed: dict[str, tuple[str, str]] = field(default_factory=dict)  # endpoint -> (id, index)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, list[_Failure]] = {}
        self._delays: dict[str, float] = {}
        # set by reset(): a delayed reply of the last test stops waiting
        self._wake = threading.Event()
        self._server: Any = None
        self._views: dict[str, _IndexView] = {}  # per index, rebuilt after each write
        self._thread: threading.Thread | None = None
        self.url = ""

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> FakeGoogleApis:
        self._server = make_server(
            "127.0.0.1", 0, self._app, threaded=True, request_handler=_QuietHandler
        )
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGoogleApis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting --------------------------------------------------------------
    def deploy(self, endpoint: str, deployed_index_id: str, index: str) -> None:
        """Declare that ``index`` is deployed on ``endpoint`` as ``deployed_index_id``."""
        self.deployed[endpoint] = (deployed_index_id, index)
        self.indexes.setdefault(index, {})

    def fail(self, route: str, status: int, times: int | None = 1) -> None:
        with self._lock:
            self._failures.setdefault(route, []).append(_Failure(status, times))

    def heal(self, route: str) -> None:
        """Drop the route's scripted failures (a quota that came back, say)."""
        with self._lock:
            self._failures.pop(route, None)

    def delay(self, route: str, seconds: float) -> None:
        self._delays[route] = seconds

    def reset(self) -> None:
        """Forget requests, scripted failures and delays, stored datapoints and
        deployments, and custom answers: a clean server for the next test."""
        with self._lock:
            self._wake.set()
            self._wake = threading.Event()
            self._failures.clear()
            self._delays.clear()
            self.requests.clear()
            self.indexes.clear()
            self._views.clear()
            self.deployed.clear()
            self.answer = default_answer
            self.read = default_reading
            self.classify = None
            self.rank_scores = None
            self.grounding_scores = None

    def datapoints(self, index: str) -> dict[str, Datapoint]:
        return dict(self.indexes.get(index, {}))

    def calls(self, route: str) -> list[Recorded]:
        return [r for r in self.requests if r.route == route]

    # -- the server -------------------------------------------------------------
    def _app(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        response = self._handle(request)
        return response(environ, start_response)

    def _handle(self, request: Request) -> Response:
        path = request.path
        try:
            body = json.loads(request.get_data() or b"{}")
        except ValueError:
            return _error(400, "body is not JSON")
        route, match = _route(path)
        if route is None or request.method != "POST":
            return _error(404, f"no such method: {request.method} {path}")
        with self._lock:
            self.requests.append(
                Recorded(route, path, dict(request.args), dict(request.headers), body)
            )
            failure = self._next_failure(route)
        if route in self._delays:
            self._wake.wait(self._delays[route])
        if failure is not None:
            return _error(failure, f"scripted failure {failure}")
        if not request.headers.get("Authorization", "").startswith("Bearer "):
            return _error(401, "missing credentials")
        handler = getattr(self, f"_{route}")
        try:
            return handler(match, body)  # type: ignore[no-any-return]
        except _Invalid as exc:
            return _error(400, str(exc))

    def _next_failure(self, route: str) -> int | None:
        queue = self._failures.get(route) or []
        while queue:
            head = queue[0]
            if head.remaining is None:
                return head.status
            if head.remaining > 0:
                head.remaining -= 1
                if head.remaining == 0:
                    queue.pop(0)
                return head.status
            queue.pop(0)
        return None

    # -- Vertex AI models -----------------------------------------------------------
    def _predict(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        instances = body.get("instances")
        if not isinstance(instances, list) or not instances:
            raise _Invalid("instances is required")
        model = m["model"]
        if model == "gemini-embedding-001" and len(instances) > 1:
            # the real service: gemini-embedding-001 takes one input text per request
            raise _Invalid("gemini-embedding-001 supports only one instance per request")
        if len(instances) > 250:
            raise _Invalid("at most 250 instances per request")
        params = body.get("parameters") or {}
        dimension = int(params.get("outputDimensionality") or 3072)
        if not 1 <= dimension <= self.dimension_limit:
            raise _Invalid("outputDimensionality out of range")
        predictions = []
        for inst in instances:
            content = inst.get("content")
            if not isinstance(content, str) or not content:
                raise _Invalid("instance content must be a non-empty string")
            task = inst.get("task_type", "")
            predictions.append(
                {
                    "embeddings": {
                        "values": fake_embedding(content, dimension, task),
                        "statistics": {"token_count": len(content.split()), "truncated": False},
                    }
                }
            )
        return _json({"predictions": predictions, "metadata": {"billableCharacterCount": 1}})

    def _generate(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        return _json(self._candidate(m["model"], self._reply(body)))

    def _stream(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        text = self._reply(body)
        words = text.split(" ")
        pieces = [
            " ".join(words[i : i + 4]) + (" " if i + 4 < len(words) else "")
            for i in range(0, len(words), 4)
        ]

        def events() -> Any:
            for i, piece in enumerate(pieces):
                payload = self._candidate(m["model"], piece, final=i == len(pieces) - 1)
                yield f"data: {json.dumps(payload)}\r\n\r\n".encode()

        return Response(events(), mimetype="text/event-stream")

    def _reply(self, body: dict[str, Any]) -> str:
        if not body.get("contents"):
            raise _Invalid("contents is required")
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "text/x.enum":
            schema = config.get("responseSchema") or {}
            allowed = schema.get("enum") or []
            text = "".join(p.get("text", "") for c in body["contents"] for p in c.get("parts", []))
            if self.classify is not None:
                return self.classify(text)
            from footnote.ingest.classify import classify

            value = classify(text).value
            return value if value in allowed else allowed[-1]
        if config.get("responseMimeType") == "application/json":
            if not config.get("responseSchema") and not config.get("responseJsonSchema"):
                raise _Invalid("a JSON reply needs its schema")
            reply = self.read(body)
            return reply if isinstance(reply, str) else json.dumps(reply)
        return self.answer(body)

    @staticmethod
    def _candidate(model: str, text: str, final: bool = True) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
        if final:
            candidate["finishReason"] = "STOP"
        return {
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": model,
        }

    # -- Vector Search ------------------------------------------------------------
    def _upsert(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        index = m["index"]
        if index not in self.indexes:
            return _error(404, f"index {index} not found")
        stored = self.indexes[index]
        dims = {len(p.vector) for p in stored.values()}
        points = [_datapoint(raw, stored=True) for raw in body.get("datapoints", [])]
        for point in points:
            if not point.vector and not point.sparse:
                raise _Invalid("a datapoint needs a dense or a sparse embedding")
            if point.vector and dims and len(point.vector) not in dims:
                raise _Invalid("feature vector dimension does not match the index")
            if point.vector:
                dims.add(len(point.vector))
        for point in points:
            stored[point.id] = point
        self._views.pop(index, None)
        return _json({})

    def _remove(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        index = m["index"]
        if index not in self.indexes:
            return _error(404, f"index {index} not found")
        for point_id in body.get("datapointIds", []):
            self.indexes[index].pop(point_id, None)
        self._views.pop(index, None)
        return _json({})

    def _find(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        endpoint = m["endpoint"]
        if endpoint not in self.deployed:
            return _error(404, f"index endpoint {endpoint} not found")
        deployed_id, index = self.deployed[endpoint]
        if body.get("deployedIndexId") != deployed_id:
            raise _Invalid(f"deployed index {body.get('deployedIndexId')} not found")
        full = bool(body.get("returnFullDatapoint"))
        view = self._view(index)
        results = []
        for query in body.get("queries", []):
            raw = query.get("datapoint") or {}
            point = _datapoint(raw)
            wanted = int(query.get("neighborCount") or 10)
            ops = _numeric_query(raw)
            allowed = view.allowed(point.restricts, ops)
            dense = sparse = None
            if point.vector:
                dense = view.dense(point.vector, allowed)
            if point.sparse:
                sparse = view.sparse_scores(point.sparse, allowed)
            if dense is not None and sparse is not None:
                if "rrf" not in query:
                    raise _Invalid("a query with dense and sparse embeddings needs rrf")
                alpha = float((query.get("rrf") or {}).get("alpha", 0.0))
                order = _rrf(dense, sparse, alpha, wanted)
            elif dense is not None:
                order = _top(dense, wanted)
            elif sparse is not None:
                order = _top(sparse, wanted)
            else:
                raise _Invalid("a query needs a feature vector or a sparse embedding")
            neighbors = []
            for i in order:
                p = view.points[i]
                out: dict[str, Any] = {
                    "datapoint": p.raw
                    if full
                    else {"datapointId": p.id, "crowdingTag": {"crowdingAttribute": "0"}}
                }
                if dense is not None:
                    out["distance"] = float(dense[i])
                if sparse is not None:
                    out["sparseDistance"] = float(sparse[i])
                neighbors.append(out)
            results.append({"id": point.id, "neighbors": neighbors})
        return _json({"nearestNeighbors": results})

    def _view(self, index: str) -> _IndexView:
        with self._lock:
            view = self._views.get(index)
            if view is None:
                view = self._views[index] = _IndexView(list(self.indexes[index].values()))
            return view

    # -- ranking --------------------------------------------------------------------
    def _rank(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        query = set(re.findall(r"[a-z0-9]+", str(body.get("query", "")).lower()))
        records = body.get("records") or []
        if not query or not records:
            raise _Invalid("query and records are required")
        if len(records) > 200:
            raise _Invalid("at most 200 records")
        scores = self.rank_scores(str(body["query"]), records) if self.rank_scores else {}
        out = []
        for r in records:
            words = set(
                re.findall(r"[a-z0-9]+", (r.get("title", "") + " " + r.get("content", "")).lower())
            )
            score = scores.get(r["id"], len(query & words) / len(query))
            out.append(
                {
                    "id": r["id"],
                    "score": round(score, 4),
                    **(
                        {}
                        if body.get("ignoreRecordDetailsInResponse")
                        else {"content": r.get("content", "")}
                    ),
                }
            )
        out.sort(key=lambda r: -r["score"])
        top_n = int(body.get("topN") or 0)
        return _json({"records": out[:top_n] if top_n else out})

    # -- grounding ------------------------------------------------------------------
    def _check(self, m: re.Match[str], body: dict[str, Any]) -> Response:
        candidate = str(body.get("answerCandidate") or "")
        facts = [str(f.get("factText") or "") for f in body.get("facts") or []]
        if not candidate or not facts:
            raise _Invalid("answerCandidate and facts are required")
        spec = body.get("groundingSpec") or {}
        threshold = float(spec.get("citationThreshold", 0.6))
        claims, chunks = [], []
        for start, end in _claim_spans(candidate):
            text = candidate[start:end]
            if self.grounding_scores is not None:
                scores = self.grounding_scores(text, facts)
            else:
                said = set(re.findall(r"\w+", text.lower()))
                scores = [
                    len(said & set(re.findall(r"\w+", f.lower()))) / len(said) if said else 1.0
                    for f in facts
                ]
            cited = []
            for i, score in enumerate(scores):
                if score >= threshold:
                    chunks.append({"chunkText": facts[i], "source": str(i)})
                    cited.append(len(chunks) - 1)
            claim: dict[str, Any] = {
                "startPos": start,
                "endPos": end,
                "claimText": text,
                "citationIndices": cited,
                "groundingCheckRequired": True,
            }
            if spec.get("enableClaimLevelScore"):
                claim["score"] = round(max(scores, default=0.0), 4)
            claims.append(claim)
        support = min((c.get("score", 0.0) for c in claims), default=0.0)
        return _json({"supportScore": support, "citedChunks": chunks, "claims": claims})


def _claim_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in re.finditer(r"[.!?](?:\s+|$)", text):
        if text[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


class _Invalid(Exception):
    pass


class _IndexView:
    """Stored datapoints as arrays, so exact search over thousands stays fast."""

    def __init__(self, points: list[Datapoint]) -> None:
        self.points = points
        self._masks: dict[str, np.ndarray] = {}
        dims = {len(p.vector) for p in points if p.vector}
        self.dim = dims.pop() if len(dims) == 1 else 0
        self.matrix = np.zeros((len(points), self.dim), dtype=np.float64)
        self.has_dense = np.zeros(len(points), dtype=bool)
        self.has_sparse = np.array([bool(p.sparse) for p in points], dtype=bool)
        self.postings: dict[int, list[tuple[int, float]]] = {}
        for i, p in enumerate(points):
            if p.vector and len(p.vector) == self.dim:
                self.matrix[i] = p.vector
                self.has_dense[i] = True
            for d, v in p.sparse.items():
                self.postings.setdefault(d, []).append((i, v))

    def allowed(
        self,
        restricts: dict[str, tuple[set[str], set[str]]],
        numeric: list[tuple[str, str, float]],
    ) -> np.ndarray:
        """Which datapoints pass a query's restricts (memoised per restricts)."""
        key = repr((sorted((k, sorted(a), sorted(d)) for k, (a, d) in restricts.items()), numeric))
        mask = self._masks.get(key)
        if mask is None:
            mask = np.array([_passes(p, restricts, numeric) for p in self.points], dtype=bool)
            self._masks[key] = mask
        return mask

    def dense(self, vector: list[float], allowed: np.ndarray) -> np.ndarray:
        scores = np.full(len(self.points), -np.inf)
        if len(vector) != self.dim:
            return scores  # no datapoint of that dimension
        keep = allowed & self.has_dense
        scores[keep] = self.matrix[keep] @ np.asarray(vector, dtype=np.float64)
        return scores

    def sparse_scores(self, query: dict[int, float], allowed: np.ndarray) -> np.ndarray:
        scores = np.zeros(len(self.points))
        for d, weight in query.items():
            for i, v in self.postings.get(d, ()):
                scores[i] += weight * v
        scores[~(allowed & self.has_sparse)] = -np.inf
        return scores


def _top(scores: np.ndarray, k: int) -> list[int]:
    finite = np.flatnonzero(np.isfinite(scores))
    ordered = finite[np.argsort(-scores[finite], kind="stable")]
    return [int(i) for i in ordered[:k]]


def _rrf(dense: np.ndarray, sparse: np.ndarray, alpha: float, k: int) -> list[int]:
    """Each ranking's top ``k``, fused by weighted reciprocal rank (60 + rank, from 1)."""
    fused: dict[int, float] = {}
    for weight, scores in ((alpha, dense), (1.0 - alpha, sparse)):
        for rank, i in enumerate(_top(scores, k), start=1):
            fused[i] = fused.get(i, 0.0) + weight / (60 + rank)
    return sorted(fused, key=lambda i: (-fused[i], i))[:k]


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _route(path: str) -> tuple[str | None, re.Match[str] | None]:
    if m := _MODEL.match(path):
        name = {
            "predict": "predict",
            "generateContent": "generate",
            "streamGenerateContent": "stream",
        }[m["method"]]
        return name, m
    if m := _INDEX.match(path):
        return ("upsert" if m["method"] == "upsertDatapoints" else "remove"), m
    if m := _FIND.match(path):
        return "find", m
    if m := _RANK.match(path):
        return "rank", m
    if m := _CHECK.match(path):
        return "check", m
    return None, None


def _datapoint(raw: dict[str, Any], stored: bool = False) -> Datapoint:
    point_id = raw.get("datapointId")
    sparse: dict[int, float] = {}
    if "sparseEmbedding" in raw:
        emb = raw["sparseEmbedding"] or {}
        dims = [int(d) for d in emb.get("dimensions", [])]
        values = [float(v) for v in emb.get("values", [])]
        if len(dims) != len(values):
            raise _Invalid("sparse embedding dimensions and values differ in length")
        if len(set(dims)) != len(dims):
            raise _Invalid("sparse embedding dimensions repeat")
        sparse = dict(zip(dims, values, strict=True))
    restricts: dict[str, tuple[set[str], set[str]]] = {}
    for r in raw.get("restricts", []) or []:
        allow, deny = restricts.setdefault(r["namespace"], (set(), set()))
        allow.update(r.get("allowList", []))
        deny.update(r.get("denyList", []))
    numeric = {}
    for r in raw.get("numericRestricts", []) or []:
        if "op" in r and r["op"] not in (0, "OPERATOR_UNSPECIFIED"):
            continue  # a query-side restriction
        numeric[r["namespace"]] = _number(r)
    if stored and not point_id:
        raise _Invalid("datapoint_id is required")
    return Datapoint(
        str(point_id or ""),
        [float(x) for x in raw.get("featureVector", [])],
        restricts,
        numeric,
        sparse,
        raw,
    )


def _number(r: dict[str, Any]) -> float:
    for key in ("valueInt", "valueFloat", "valueDouble"):
        if key in r:
            return float(r[key])
    raise _Invalid("numeric restriction without a value")


def _numeric_query(raw: dict[str, Any]) -> list[tuple[str, str, float]]:
    out = []
    for r in raw.get("numericRestricts", []) or []:
        op = r.get("op")
        op = _OPS.get(op, op) if isinstance(op, int) else op
        if not op or op == "OPERATOR_UNSPECIFIED":
            raise _Invalid("a query numeric restriction needs an op")
        out.append((r["namespace"], str(op), _number(r)))
    return out


def _passes(
    point: Datapoint,
    restricts: dict[str, tuple[set[str], set[str]]],
    numeric: list[tuple[str, str, float]],
) -> bool:
    for namespace, (allow, deny) in restricts.items():
        tokens = point.restricts.get(namespace, (set(), set()))[0]
        if allow and not (tokens & allow):
            return False
        if deny and tokens & deny:
            return False
    for namespace, op, value in numeric:
        if namespace not in point.numeric:
            return False
        have = point.numeric[namespace]
        ok = {
            "LESS": have < value,
            "LESS_EQUAL": have <= value,
            "EQUAL": have == value,
            "GREATER_EQUAL": have >= value,
            "GREATER": have > value,
            "NOT_EQUAL": have != value,
        }[op]
        if not ok:
            return False
    return True


def _json(payload: dict[str, Any], status: int = 200) -> Response:
    return Response(json.dumps(payload), status=status, mimetype="application/json")


def _error(status: int, message: str) -> Response:
    return _json(
        {
            "error": {
                "code": status,
                "message": message,
                "status": STATUS_NAMES.get(status, "UNKNOWN"),
            }
        },
        status,
    )
