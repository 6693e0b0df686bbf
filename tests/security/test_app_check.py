"""Firebase App Check (APP_CHECK=enforce): the real firebase-admin verification,
with App Check's key set served locally over HTTP (its wire format: a JWKS) and
tokens minted here with the matching key."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from werkzeug.test import Client
from werkzeug.wrappers import Request

from footnote.adapters.firebase_app_check import FirebaseAppCheckVerifier
from footnote.api.http import Api
from footnote.errors import Unauthenticated
from footnote.wiring import Container
from tests.inproc import TokenTable, envelope, settings
from tests.security.tokens import KID, keypair

PROJECT = f"demo-appcheck-{uuid.uuid4().hex[:6]}"
NUMBER = "123456789012"
APP_ID = "1:123456789012:web:abcdef"


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    key, _ = keypair("trusted")
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    body = json.dumps({"keys": [{**public, "kid": KID, "alg": "RS256", "use": "sig"}]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1/jwks"
    server.shutdown()


@pytest.fixture(scope="module")
def api(jwks_url: str) -> Iterator[Client]:
    from firebase_admin import app_check

    original = app_check._AppCheckService._JWKS_URL
    app_check._AppCheckService._JWKS_URL = jwks_url
    container = Container(settings(APP_CHECK="enforce", GOOGLE_CLOUD_PROJECT=PROJECT))
    c = container
    # Production has ADC; here the app gets a credential that needs no metadata server.
    import firebase_admin
    from firebase_admin import credentials

    class NoCredential(credentials.Base):
        def get_credential(self) -> Any:
            from google.auth.credentials import AnonymousCredentials

            return AnonymousCredentials()

    verifier = c.app_check
    assert isinstance(verifier, FirebaseAppCheckVerifier)
    verifier._app = firebase_admin.initialize_app(
        NoCredential(), options={"projectId": PROJECT}, name=f"app-check-{PROJECT}"
    )
    handler = Api(
        c.settings, TokenTable(), lambda: c.notes, lambda: c.chat, c.health, app_check=verifier
    )
    yield Client(Request.application(handler.handle))
    app_check._AppCheckService._JWKS_URL = original
    firebase_admin.delete_app(verifier._app)


def mint(key_name: str = "trusted", **overrides: Any) -> str:
    now = int(time.time())
    claims = {
        "iss": f"https://firebaseappcheck.googleapis.com/{NUMBER}",
        "aud": [f"projects/{NUMBER}", f"projects/{PROJECT}"],
        "sub": APP_ID,
        "iat": now - 5,
        "exp": now + 3600,
    }
    claims.update(overrides)
    key, _ = keypair(key_name)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": KID, "typ": "JWT"})


def call(api: Client, app_check_token: str | None) -> Any:
    headers = {"Authorization": "Bearer token-alice"}
    if app_check_token is not None:
        headers["X-Firebase-AppCheck"] = app_check_token
    return api.get("/notes", headers=headers)


def test_a_valid_app_check_token_is_accepted(api: Client) -> None:
    response = call(api, mint())
    assert response.status_code == 200, response.get_data(as_text=True)


@pytest.mark.parametrize(
    "token",
    [
        None,
        "",
        "not-a-jwt",
        "forged",
        "expired",
        "other-project",
        "wrong-issuer",
    ],
)
def test_missing_or_bad_app_check_tokens_are_refused(api: Client, token: str | None) -> None:
    now = int(time.time())
    value = {
        "forged": lambda: mint("attacker"),
        "expired": lambda: mint(exp=now - 60, iat=now - 3700),
        "other-project": lambda: mint(aud=["projects/999", "projects/someone-else"]),
        "wrong-issuer": lambda: mint(iss="https://evil.example/123"),
    }.get(token or "", lambda: token)()
    response = call(api, value)
    assert response.status_code == 401
    error = envelope(response)
    assert error["code"] == "unauthenticated" and "App Check" in error["message"]


def test_public_routes_need_no_app_check(api: Client) -> None:
    assert api.get("/healthz").status_code == 200


def test_app_check_is_off_by_default() -> None:
    assert Container(settings()).app_check is None
    with pytest.raises(Unauthenticated):
        from footnote.adapters.firebase_app_check import FirebaseAppCheckVerifier

        FirebaseAppCheckVerifier(PROJECT).verify("")
