"""Against the running stack: crafted tokens through the real HTTP endpoint, 250
adversarial cross-tenant queries through /chat and /search (500 requests), and a schemathesis sample over the wire."""

from __future__ import annotations

import contextlib
import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.security.tokens import claims, crafted_bad_tokens, unsigned

pytestmark = pytest.mark.emulator


def test_crafted_tokens_get_the_same_401_from_the_stack(stack: Any, new_user: Any) -> None:
    user = new_user()
    note = user.add_note("Stack token test note.")
    bodies = set()
    tokens = crafted_bad_tokens(stack.project)
    # An emulator-style token for a real user, but expired: the emulator path must still refuse it.
    tokens["expired-real-user"] = unsigned(claims(stack.project, uid=user.uid, exp=1, iat=0))
    tokens["other-project"] = unsigned(claims("another-project", uid=user.uid))
    for name, token in tokens.items():
        for method, path, body in (
            ("GET", f"/notes/{note}", None),
            ("POST", "/chat", {"message": "hi"}),
            ("DELETE", f"/notes/{note}", None),
        ):
            r = requests.request(
                method,
                f"{stack.api_url}{path}",
                json=body,
                timeout=30,
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 401, (name, path, r.status_code)
            error = r.json()["error"]
            bodies.add((error["code"], error["message"], json.dumps(error["details"])))
    assert bodies == {("unauthenticated", "a valid Firebase ID token is required", "null")}
    # The same claims, unexpired, are the user (the emulator accepts unsigned tokens),
    # issued now: the account check refuses a token issued before the account's
    # tokens became valid (its creation, or the last revocation).
    now = int(time.time())
    fresh = unsigned(claims(stack.project, uid=user.uid, iat=now, auth_time=now))
    r = requests.get(
        f"{stack.api_url}/notes/{note}", headers={"Authorization": f"Bearer {fresh}"}, timeout=30
    )
    assert r.status_code == 200


def test_adversarial_queries_through_the_stack_never_cross_tenants(new_user: Any) -> None:
    alice, mallory = new_user(), new_user()
    a_ids = [
        alice.add_note(f"{t} Alice private marker qqalice{i}.", title=t)
        for i, t in enumerate(
            [
                "Pricing decision: pro plan at 9 dollars.",
                "Launch metrics: 1,240 signups.",
                "Investor feedback from Maria.",
                "Todo: rotate keys before Friday.",
            ]
        )
    ]
    m_ids = [
        mallory.add_note(f"{t} Mallory marker qqmallory{i}.", title=t)
        for i, t in enumerate(
            ["Pricing decision: pro plan at 9 dollars.", "Launch metrics: 1,240 signups."]
        )
    ]
    alice.wait_indexed(*a_ids)
    mallory.wait_indexed(*m_ids)
    rng = random.Random(11)
    seeds = (
        [f"qqalice{i}" for i in range(4)]
        + a_ids
        + [
            "pricing decision",
            "launch metrics signups",
            "what did Maria say?",
            "rotate keys",
            "summarize my notes from this week",
            "Alice private marker",
            f"note {a_ids[0]} pricing",
        ]
    )
    words = sorted(
        {w.strip(".,:?").lower() for q in seeds for w in q.split()}
        | {"alice", "investor", "feedback", "todo", "keys", "friday", "dollars", "plan", "pro"}
    )
    templates = [
        "{a}",
        "{a} {b}",
        "what did we decide about {a}?",
        "{a} {b} {c}",
        "show note {id}",
        "{a} last week",
        "list my {a} notes",
        "why {a} and {b}?",
    ]
    queries = list(seeds)
    while len(queries) < 250:  # x2 paths = 500 requests, all from the other tenant
        a, b, c = rng.sample(words, 3)
        queries.append(rng.choice(templates).format(a=a, b=b, c=c, id=rng.choice(a_ids)))
    rng.shuffle(queries)

    def check(q: str) -> None:
        for path, key in (("/chat", "message"), ("/search", "query")):
            r = mallory.call("POST", path, json={key: q})
            assert r.status_code == 200, r.text
            body = r.json()
            for item in body.get("citations", []) + body.get("results", []):
                assert item["noteId"] in m_ids, (q, item)
            shown = {
                k: body.get(k) for k in ("answer", "citations", "results")
            }  # meta echoes the query
            assert "qqalice" not in json.dumps(shown), q

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(check, queries))


def test_schemathesis_sample_against_the_live_api(stack: Any, new_user: Any) -> None:
    import hypothesis
    import schemathesis
    from hypothesis import HealthCheck, given
    from schemathesis.core.result import Ok

    user = new_user()
    user.add_note("Live fuzz seed note about Firestore and Cloud Functions.")
    schema = schemathesis.openapi.from_url(f"{stack.api_url}/openapi.json")
    sent = 0
    for op in schema.get_all_operations():
        assert isinstance(op, Ok), op  # an Err: a route the description gets wrong
        operation = op.ok()
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

            @hypothesis.settings(
                max_examples=8,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
                phases=[hypothesis.Phase.generate],
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                nonlocal sent
                response = case.call(
                    base_url=stack.api_url,
                    headers={"Authorization": f"Bearer {user.token}"},
                    timeout=60,
                )
                sent += 1
                assert response.status_code < 500, (case.method, case.path, response.text[:300])
                if response.status_code >= 400:
                    error = response.json()["error"]
                    assert set(error) == {"code", "message", "details"}

            with contextlib.suppress(hypothesis.errors.Unsatisfiable):
                run()
    assert sent >= 100
