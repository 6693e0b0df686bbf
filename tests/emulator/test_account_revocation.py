"""Tokens die with the account: once a user is deleted in the Auth emulator, their
still-unexpired ID token gets 401 on every endpoint — writes at once, reads within
AUTH_REVOCATION_CACHE_S (2 s on the test stack)."""

from __future__ import annotations

import time

import pytest
import requests

pytestmark = pytest.mark.emulator


def _endpoints(note_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    return [
        ("POST", "/notes", {"text": "after deletion"}),
        ("PATCH", f"/notes/{note_id}", {"text": "after deletion"}),
        ("DELETE", f"/notes/{note_id}", None),
        ("POST", "/chat", {"message": "What did I write?"}),
        ("POST", "/search", {"query": "wrote"}),
        ("GET", "/notes", None),
        ("GET", f"/notes/{note_id}", None),
        ("GET", "/notes/changes", None),
        ("GET", "/conversations", None),
        ("GET", "/conversations/abc/messages", None),
        ("GET", "/messages/abc/sources", None),
    ]


def test_a_deleted_users_token_gets_401_everywhere(stack, new_user) -> None:
    user = new_user()
    note_id = user.add_note("I wrote this before deleting my account.")
    assert user.call("GET", "/notes").status_code == 200  # reads cached as valid now
    deleted = requests.post(
        f"http://{stack.client_env()['FIREBASE_AUTH_EMULATOR_HOST']}"
        "/identitytoolkit.googleapis.com/v1/accounts:delete?key=demo",
        json={"idToken": user.token},
        timeout=10,
    )
    assert deleted.status_code == 200, deleted.text
    writes = [e for e in _endpoints(note_id) if e[0] != "GET"]
    for method, path, body in writes:  # writes ask Firebase Auth every time
        r = user.call(method, path, json=body)
        assert r.status_code == 401, (method, path, r.status_code, r.text)
    time.sleep(2.1)  # the read cache's bound
    for method, path, body in _endpoints(note_id):
        r = user.call(method, path, json=body)
        assert r.status_code == 401, (method, path, r.status_code, r.text)
        assert r.json()["error"]["code"] == "unauthenticated"
    # Nothing the token sent after the deletion was stored.
    from google.cloud import firestore

    snap = firestore.Client(project=stack.project).collection("notes").document(note_id).get()
    assert snap.exists and snap.get("text") == "I wrote this before deleting my account."


def test_an_account_being_deleted_cannot_sign_in_again(stack, new_user) -> None:
    from footnote.dev.demo import DEMO_PASSWORD

    user = new_user()
    r = user.call("DELETE", "/account", json={"confirm": user.email})
    assert r.status_code == 202, r.text
    # At once, before the deletion job has run: the password no longer signs in ...
    signed = requests.post(
        f"http://{stack.client_env()['FIREBASE_AUTH_EMULATOR_HOST']}"
        "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo",
        json={"email": user.email, "password": DEMO_PASSWORD, "returnSecureToken": True},
        timeout=10,
    )
    assert signed.status_code == 400, signed.text
    # ... disabled, or already deleted if the job got there first
    assert signed.json()["error"]["message"] in ("USER_DISABLED", "EMAIL_NOT_FOUND"), signed.text
