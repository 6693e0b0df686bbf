"""Crafting Firebase-shaped ID tokens: signed with a test key, unsigned, expired, ..."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from functools import lru_cache
from typing import Any

import jwt  # PyJWT (a firebase-admin dependency)

KID = "footnote-test-kid"


@lru_cache(maxsize=2)
def keypair(name: str = "trusted") -> tuple[Any, str]:
    """An RSA key and its self-signed certificate (PEM), as Google's cert endpoint serves them."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"footnote-{name}")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return key, cert.public_bytes(serialization.Encoding.PEM).decode()


def claims(project: str, uid: str = "victim-uid", **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {
        "iss": f"https://securetoken.google.com/{project}",
        "aud": project,
        "auth_time": now - 10,
        "user_id": uid,
        "sub": uid,
        "iat": now - 10,
        "exp": now + 3600,
        "firebase": {"identities": {}, "sign_in_provider": "password"},
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def signed(
    payload: dict[str, Any], key_name: str = "trusted", kid: str = KID, alg: str = "RS256"
) -> str:
    key, _ = keypair(key_name)
    return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})


def unsigned(payload: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    """What the Auth emulator issues: alg none, empty signature."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{part(header or {'alg': 'none', 'typ': 'JWT'})}.{part(payload)}."


def crafted_bad_tokens(project: str) -> dict[str, str]:
    """Every way a token can be wrong, whichever way it is checked."""
    now = int(time.time())
    return {
        "expired": unsigned(claims(project, exp=now - 60, iat=now - 3700)),
        "expired-signed": signed(claims(project, exp=now - 60, iat=now - 3700)),
        "wrong-audience": unsigned(claims(project, aud="someone-elses-project")),
        "wrong-audience-signed": signed(claims(project, aud="someone-elses-project")),
        "wrong-issuer": unsigned(claims(project, iss="https://securetoken.google.com/evil")),
        "custom-token-audience": unsigned(
            claims(
                project,
                aud="https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
            )
        ),
        "no-subject": unsigned(claims(project, sub=None, user_id=None)),
        "empty-subject": unsigned(claims(project, sub="", user_id="")),
        "long-subject": unsigned(claims(project, sub="u" * 129, user_id="u" * 129)),
        "path-subject": unsigned(claims(project, sub="a/../b", user_id="a/../b")),
        "reserved-subject": unsigned(claims(project, sub="__admin__", user_id="__admin__")),
        "issued-in-future": unsigned(claims(project, iat=now + 3600, exp=now + 7200)),
        "no-expiry": unsigned(claims(project, exp=None)),
        "garbage": "not-a-token",
        "three-dots": "a.b.c",
        "bad-base64": "eyJ!!!.eyJ!!!.sig",
        "json-array-payload": unsigned({"alg": "none"}, None).split(".")[0]
        + "."
        + base64.urlsafe_b64encode(b"[1,2]").decode().rstrip("=")
        + ".",
        "huge": "a" * 9000,
    }
