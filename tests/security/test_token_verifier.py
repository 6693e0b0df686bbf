"""The token verifier against crafted tokens, in process: production mode (signatures
checked against a test certificate) and emulator mode (signatures skipped, everything
else still checked). Every rejection looks the same to the caller."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest

from footnote.adapters.firebase_auth import FirebaseTokenVerifier
from footnote.api.http import Api
from footnote.errors import Unauthenticated
from tests.inproc import Harness, envelope
from tests.security.tokens import KID, claims, crafted_bad_tokens, keypair, signed, unsigned

PROJECT = "demo-footnote"
_counter = itertools.count()


def _verifier() -> FirebaseTokenVerifier:
    # A fresh firebase-admin app per test: its auth client remembers emulator mode.
    return FirebaseTokenVerifier(f"{PROJECT}")


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch) -> Iterator[FirebaseTokenVerifier]:
    """Outside the emulator; Google's certificate endpoint answers with our test cert."""
    import firebase_admin
    import google.oauth2.id_token as google_id_token

    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    _, cert = keypair("trusted")
    monkeypatch.setattr(google_id_token, "_fetch_certs", lambda request, url: {KID: cert})
    v = _verifier()
    # Production has ADC; the test app needs no credential to verify tokens.
    from firebase_admin import credentials

    class NoCredential(credentials.Base):
        def get_credential(self) -> Any:
            from google.auth.credentials import AnonymousCredentials

            return AnonymousCredentials()

    app = firebase_admin.initialize_app(
        NoCredential(), options={"projectId": PROJECT}, name=f"prod-{next(_counter)}"
    )
    v._app = app
    yield v
    firebase_admin.delete_app(app)


@pytest.fixture
def emulated(monkeypatch: pytest.MonkeyPatch) -> Iterator[FirebaseTokenVerifier]:
    import firebase_admin

    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9")
    v = _verifier()
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT}, name=f"emu-{next(_counter)}"
    )
    v._app = app
    yield v
    firebase_admin.delete_app(app)


def test_production_accepts_a_properly_signed_token(production: FirebaseTokenVerifier) -> None:
    assert production.verify(signed(claims(PROJECT, uid="alice-uid"))) == "alice-uid"


@pytest.mark.parametrize("name", sorted(crafted_bad_tokens(PROJECT)))
def test_production_rejects_every_bad_token(production: FirebaseTokenVerifier, name: str) -> None:
    token = crafted_bad_tokens(PROJECT)[name]
    with pytest.raises(Unauthenticated) as caught:
        production.verify(token)
    assert caught.value.message == "a valid Firebase ID token is required"


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(lambda: unsigned(claims(PROJECT)), id="unsigned-alg-none"),
        pytest.param(
            lambda: unsigned(claims(PROJECT), {"alg": "none", "kid": KID}), id="unsigned-with-kid"
        ),
        pytest.param(
            lambda: signed(claims(PROJECT), key_name="attacker"), id="signed-by-another-key"
        ),
        pytest.param(lambda: signed(claims(PROJECT), kid="unknown-kid"), id="unknown-kid"),
        pytest.param(lambda: _hs256(), id="hs256-with-public-cert-as-secret"),
        pytest.param(lambda: _tampered(), id="payload-swapped-after-signing"),
    ],
)
def test_production_rejects_unsigned_and_forged_tokens(
    production: FirebaseTokenVerifier, token: Any
) -> None:
    with pytest.raises(Unauthenticated):
        production.verify(token())


def _hs256() -> str:
    """The classic algorithm-confusion forgery: HMAC keyed with the public certificate."""
    import base64
    import hashlib
    import hmac

    _, cert = keypair("trusted")
    head_payload = unsigned(claims(PROJECT), {"alg": "HS256", "typ": "JWT", "kid": KID}).rstrip(".")
    mac = hmac.new(cert.encode(), head_payload.encode(), hashlib.sha256).digest()
    return f"{head_payload}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"


def _tampered() -> str:
    real = signed(claims(PROJECT, uid="mallory-uid"))
    forged = unsigned(claims(PROJECT, uid="victim-uid")).split(".")[1]
    header, _, signature = real.split(".")
    return f"{header}.{forged}.{signature}"


def test_emulator_mode_accepts_unsigned_but_checks_everything_else(
    emulated: FirebaseTokenVerifier,
) -> None:
    assert emulated.verify(unsigned(claims(PROJECT, uid="emu-uid"))) == "emu-uid"
    for name, token in crafted_bad_tokens(PROJECT).items():
        if name.endswith("-signed"):
            continue  # signed variants are covered above; in emulator mode they are the same claims
        with pytest.raises(Unauthenticated):
            emulated.verify(token)
            pytest.fail(f"emulator mode accepted the {name} token")


def test_rejections_through_the_api_are_identical_and_leak_nothing() -> None:
    """The HTTP edge: every endpoint, every bad credential → the same 401 body."""
    h = Harness()
    note = h.add_note("owner", "A private note about the launch plan.")

    class Strict:
        def verify(self, token: str, fresh: bool = False, check_account: bool = True) -> str:
            if token == "good":
                return "owner"
            raise Unauthenticated("a valid Firebase ID token is required")

    h.api = Api(
        h.container.settings,
        Strict(),
        lambda: h.container.notes,
        lambda: h.container.chat,
        h.container.health,
    )
    endpoints = [
        ("GET", "/notes", None),
        ("POST", "/notes", {"text": "x"}),
        ("GET", f"/notes/{note}", None),
        ("PATCH", f"/notes/{note}", {"text": "y"}),
        ("DELETE", f"/notes/{note}", None),
        ("POST", "/chat", {"message": "launch?"}),
        ("POST", "/search", {"query": "launch"}),
        ("GET", "/conversations/abc/messages", None),
        ("GET", "/messages/abc/sources", None),
        ("GET", "/api/notes", None),
        ("GET", "/notes/bad!id", None),
    ]
    headers_list = [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": "Basic b3duZXI6cGFzcw=="},
        {"Authorization": "Token good"},
        {"Authorization": "Bearer bad"},
        {"Authorization": "bearer  "},
        *({"Authorization": f"Bearer {t}"} for t in crafted_bad_tokens(PROJECT).values()),
    ]
    bodies = set()
    for (method, path, body), headers in itertools.product(endpoints, headers_list):
        response = h.call(method, path, json=body, headers=headers)
        assert response.status_code == 401, (method, path, headers, response.status_code)
        error = envelope(response)
        bodies.add((error["code"], error["message"], str(error["details"])))
        text = response.get_data(as_text=True)
        token = headers.get("Authorization", "").partition(" ")[2]
        assert not token or len(token) < 6 or token not in text
    assert bodies == {("unauthenticated", "a valid Firebase ID token is required", "None")}
    assert (
        h.call("GET", f"/notes/{note}", headers={"Authorization": "Bearer good"}).status_code == 200
    )
    assert h.store.notes[note].text == "A private note about the launch plan."  # nothing changed


def test_expired_check_uses_the_clock(emulated: FirebaseTokenVerifier) -> None:
    now = int(time.time())
    assert emulated.verify(unsigned(claims(PROJECT, uid="u1", exp=now + 30))) == "u1"
    with pytest.raises(Unauthenticated):
        emulated.verify(unsigned(claims(PROJECT, uid="u1", exp=now - 1)))


# -- FIREBASE_AUTH_EMULATOR_HOST outside the emulator: refuse to start ------------------


@pytest.mark.parametrize(
    ("env", "refused"),
    [
        ({"GOOGLE_CLOUD_PROJECT": "my-footnote-prod"}, True),
        ({"GOOGLE_CLOUD_PROJECT": "demo-footnote", "K_SERVICE": "footnote-api"}, True),
        ({"GOOGLE_CLOUD_PROJECT": "demo-footnote"}, False),
    ],
)
def test_settings_refuse_the_auth_emulator_outside_the_emulator(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], refused: bool
) -> None:
    from footnote.config import Settings
    from footnote.wiring import Container

    monkeypatch.delenv("K_SERVICE", raising=False)
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if env.get("K_SERVICE") and env["GOOGLE_CLOUD_PROJECT"].startswith("demo-"):
        # Deployed with a demo-* project: the settings themselves refuse, before any token.
        with pytest.raises(ValueError, match="placeholder 'demo-footnote' outside the emulator"):
            Settings()
        return
    settings = Settings()
    if refused:
        with pytest.raises(ValueError, match="FIREBASE_AUTH_EMULATOR_HOST is set outside"):
            settings.check_safe_to_serve()
        with pytest.raises(ValueError, match="FIREBASE_AUTH_EMULATOR_HOST is set outside"):
            Container(settings).verifier  # noqa: B018 (building it is the check)
    else:
        settings.check_safe_to_serve()
        assert Container(settings).verifier is not None


def test_the_api_function_does_not_start_with_the_auth_emulator_in_production() -> None:
    """Importing functions/api/main.py is what functions-framework does at start-up."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": str(root / "shared"),
        "GOOGLE_CLOUD_PROJECT": "my-footnote-prod",
        "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099",
    }
    run = subprocess.run(
        [sys.executable, "-c", "import runpy; runpy.run_path('functions/api/main.py')"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "FIREBASE_AUTH_EMULATOR_HOST is set outside the emulator" in run.stderr
    env["GOOGLE_CLOUD_PROJECT"] = "demo-footnote"
    ok = subprocess.run(
        [sys.executable, "-c", "import runpy; runpy.run_path('functions/api/main.py')"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr[-500:]


def test_both_verifiers_share_one_firebase_app_per_project() -> None:
    import firebase_admin

    from footnote.adapters.firebase_app_check import FirebaseAppCheckVerifier

    project = f"demo-shared-{next(_counter)}"
    app = FirebaseTokenVerifier(project)._get_app()
    try:
        assert FirebaseAppCheckVerifier(project)._get_app() is app
        assert app.project_id == project
    finally:
        firebase_admin.delete_app(app)


# -- revocation: deleted, disabled or signed-out accounts ------------------------------


class _Auth:
    """firebase_admin.auth.verify_id_token, faked: the account is valid until
    ``revoked``; counts the account checks (check_revoked=True)."""

    def __init__(self) -> None:
        self.revoked = False
        self.account_checks = 0

    def verify_id_token(self, token: str, app: Any = None, check_revoked: bool = False) -> Any:
        if check_revoked:
            self.account_checks += 1
            if self.revoked:
                raise ValueError("user not found")  # UserNotFoundError, RevokedIdTokenError…
        return {"uid": "u1", "iat": int(time.time()) - 5, "exp": int(time.time()) + 600}


@pytest.fixture
def fake_auth(monkeypatch: pytest.MonkeyPatch) -> _Auth:
    from firebase_admin import auth

    fake = _Auth()
    monkeypatch.setattr(auth, "verify_id_token", fake.verify_id_token)
    return fake


def test_reads_reuse_an_account_check_for_the_cache_bound_writes_always_check(
    fake_auth: _Auth,
) -> None:
    now = [1000.0]
    v = FirebaseTokenVerifier(PROJECT, app=object(), revocation_cache_s=60, clock=lambda: now[0])
    assert v.verify("t") == "u1" and fake_auth.account_checks == 1
    assert v.verify("t") == "u1" and fake_auth.account_checks == 1  # cached read
    assert v.verify("t", fresh=True) == "u1" and fake_auth.account_checks == 2  # a write asks
    fake_auth.revoked = True  # the account is deleted now
    now[0] += 59
    assert v.verify("t") == "u1"  # a read within the bound still passes…
    now[0] += 2
    with pytest.raises(Unauthenticated):
        v.verify("t")  # …and not after it
    with pytest.raises(Unauthenticated):
        v.verify("t")  # nor ever again: a refusal is not cached as valid


def test_a_refused_write_ends_the_cached_reads_too(fake_auth: _Auth) -> None:
    now = [1000.0]
    v = FirebaseTokenVerifier(PROJECT, app=object(), revocation_cache_s=60, clock=lambda: now[0])
    assert v.verify("t") == "u1"
    fake_auth.revoked = True
    with pytest.raises(Unauthenticated):
        v.verify("t", fresh=True)  # writes stop at once
    with pytest.raises(Unauthenticated):
        v.verify("t")  # and the read that follows asks again


def test_without_revocation_checks_the_account_is_not_asked(fake_auth: _Auth) -> None:
    v = FirebaseTokenVerifier(PROJECT, app=object())
    fake_auth.revoked = True
    assert v.verify("t", fresh=True) == "u1" and fake_auth.account_checks == 0


def test_the_wiring_checks_revocation() -> None:
    from footnote.wiring import Container
    from tests.inproc import settings

    verifier = Container(settings(AUTH_REVOCATION_CACHE_S=7)).verifier
    assert isinstance(verifier, FirebaseTokenVerifier) and verifier._cache_s == 7
