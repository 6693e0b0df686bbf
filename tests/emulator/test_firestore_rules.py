"""firestore.rules, enforced by the Firestore emulator's rules engine.

Clients never read or write chunks (or anything derived from notes); a note is
readable and writable only by its owner. Requests go over the emulator's REST
API with unsigned Firebase ID tokens (which the emulator accepts) or none.

The rules are loaded into a project of their own on the shared emulator, so the
stack's project - where the functions use admin credentials - is untouched.
Documents are seeded with admin credentials (``Bearer owner``) through
``FirestoreStore`` itself, so the rules are checked against the exact shape the
backend writes.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from footnote.adapters import firestore_store as fsstore
from footnote.domain import IndexState, IndexStatus, Turn
from tests import factories

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parents[2]
RULES_PROJECT = "demo-footnote-rules"
ALICE, BOB = "alice-uid", "bob-uid"


# -- REST helpers ---------------------------------------------------------------


def id_token(uid: str) -> str:
    """An unsigned Firebase ID token, as the Auth emulator issues."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    claims = {
        "iss": f"https://securetoken.google.com/{RULES_PROJECT}",
        "aud": RULES_PROJECT,
        "sub": uid,
        "user_id": uid,
        "iat": 1_700_000_000,
        "exp": 4_000_000_000,
        "auth_time": 1_700_000_000,
        "firebase": {"sign_in_provider": "password", "identities": {}},
    }
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


class Rest:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.root = f"projects/{RULES_PROJECT}/databases/(default)/documents"
        self.docs = f"{self.base}/v1/{self.root}"

    def _headers(self, uid: str | None) -> dict[str, str]:
        if uid is None:
            return {}
        return {"Authorization": "Bearer owner" if uid == "ADMIN" else f"Bearer {id_token(uid)}"}

    def get(self, uid: str | None, path: str) -> requests.Response:
        return requests.get(f"{self.docs}/{path}", headers=self._headers(uid), timeout=10)

    def query(
        self, uid: str | None, collection: str, where: dict[str, str] | None = None
    ) -> requests.Response:
        structured: dict[str, Any] = {"from": [{"collectionId": collection}]}
        if where:
            structured["where"] = {
                "compositeFilter": {
                    "op": "AND",
                    "filters": [
                        {
                            "fieldFilter": {
                                "field": {"fieldPath": k},
                                "op": "EQUAL",
                                "value": {"stringValue": v},
                            }
                        }
                        for k, v in where.items()
                    ],
                }
            }
        return requests.post(
            f"{self.docs}:runQuery",
            headers=self._headers(uid),
            json={"structuredQuery": structured},
            timeout=10,
        )

    def commit(self, uid: str | None, writes: list[dict[str, Any]]) -> requests.Response:
        return requests.post(
            f"{self.docs}:commit", headers=self._headers(uid), json={"writes": writes}, timeout=10
        )

    def write(
        self,
        uid: str | None,
        path: str,
        fields: dict[str, Any],
        *,
        server_time: tuple[str, ...] = (),
        exists: bool | None = None,
        mask: list[str] | None = None,
    ) -> requests.Response:
        write: dict[str, Any] = {
            "update": {"name": f"{self.root}/{path}", "fields": encode(fields)}
        }
        if server_time:
            write["updateTransforms"] = [
                {"fieldPath": f, "setToServerValue": "REQUEST_TIME"} for f in server_time
            ]
        if exists is not None:
            write["currentDocument"] = {"exists": exists}
        if mask is not None:
            write["updateMask"] = {"fieldPaths": mask}
        return self.commit(uid, [write])

    def delete(self, uid: str | None, path: str) -> requests.Response:
        return self.commit(uid, [{"delete": f"{self.root}/{path}"}])


def encode(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: encode_value(v) for k, v in value.items()}
    raise TypeError(value)


def encode_value(v: Any) -> dict[str, Any]:
    if v is None:
        return {"nullValue": None}
    if isinstance(v, bool):
        return {"booleanValue": v}
    if isinstance(v, int):
        return {"integerValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, datetime):
        return {"timestampValue": v.astimezone(UTC).isoformat().replace("+00:00", "Z")}
    if isinstance(v, list | tuple):
        return {"arrayValue": {"values": [encode_value(x) for x in v]}}
    if isinstance(v, dict):
        return {"mapValue": {"fields": encode(v)}}
    raise TypeError(v)


def denied(response: requests.Response) -> bool:
    return response.status_code == 403 and "PERMISSION_DENIED" in response.text


def query_ok(response: requests.Response) -> bool:
    return response.status_code == 200


# -- fixtures -------------------------------------------------------------------


@pytest.fixture(scope="module")
def rest(stack) -> Rest:
    r = Rest(stack.ports.firestore)
    rules = (ROOT / "firestore.rules").read_text(encoding="utf-8")
    response = requests.put(
        f"{r.base}/emulator/v1/projects/{RULES_PROJECT}:securityRules",
        json={"rules": {"files": [{"name": "firestore.rules", "content": rules}]}},
        timeout=30,
    )
    assert response.status_code == 200, f"firestore.rules did not load: {response.text}"
    return r


@pytest.fixture(scope="module")
def store(stack):
    from google.cloud import firestore

    return fsstore.FirestoreStore(firestore.Client(project=RULES_PROJECT))


@pytest.fixture
def alice_note(rest: Rest, store: fsstore.FirestoreStore) -> str:
    """A note of Alice's, written by the backend (admin) exactly as the API writes it,
    with a chunk, index state, tenant counter and a conversation turn."""
    note_id = f"n{uuid.uuid4().hex[:12]}"
    note = factories.note(note_id, "We chose Firestore for storage.", tenant=ALICE)
    store.create_note(note)
    chunk = factories.chunk(f"{note_id}_000", note.text, tenant=ALICE)
    store.replace_chunks(note, [chunk], IndexState(note_id, ALICE, IndexStatus.INDEXED))
    store.append_turns(
        [
            Turn(
                message_id=f"m{note_id}",
                conversation_id=f"c{note_id}",
                tenant_id=ALICE,
                role="user",
                text="what storage?",
                created_at=note.created_at,
            ),
        ]
    )
    store.put_many({f"k{note_id}": [0.1, 0.2]})
    return note_id


def client_note(uid: str, **overrides: Any) -> dict[str, Any]:
    """A note as a client would write it: the backend's own document shape."""
    doc = fsstore._note_doc(factories.note("x", "Client-side note about pricing.", tenant=uid))
    doc.pop("createdAt")
    doc.pop("updatedAt")
    doc.update(overrides)
    return doc


# -- notes: owner only --------------------------------------------------------------


def test_rules_load_and_admin_bypasses_them(rest: Rest, alice_note: str) -> None:
    assert rest.get("ADMIN", f"notes/{alice_note}").status_code == 200


def test_owner_reads_and_lists_own_notes(rest: Rest, alice_note: str) -> None:
    response = rest.get(ALICE, f"notes/{alice_note}")
    assert response.status_code == 200, response.text
    assert response.json()["fields"]["tenantId"]["stringValue"] == ALICE
    listed = rest.query(ALICE, "notes", {"tenantId": ALICE})
    assert query_ok(listed), listed.text
    assert any(alice_note in row.get("document", {}).get("name", "") for row in listed.json())


def test_unauthenticated_requests_are_denied(rest: Rest, alice_note: str) -> None:
    assert denied(rest.get(None, f"notes/{alice_note}"))
    assert denied(rest.query(None, "notes", {"tenantId": ALICE}))
    assert denied(rest.write(None, f"notes/{alice_note}", {"text": "x"}, mask=["text"]))
    assert denied(
        rest.write(
            None,
            "notes/anon",
            client_note(ALICE),
            server_time=("createdAt", "updatedAt"),
            exists=False,
        )
    )
    assert denied(rest.delete(None, f"notes/{alice_note}"))


def test_another_user_can_neither_read_nor_write_a_note(rest: Rest, alice_note: str) -> None:
    assert denied(rest.get(BOB, f"notes/{alice_note}"))
    assert denied(rest.query(BOB, "notes", {"tenantId": ALICE}))
    assert denied(rest.query(BOB, "notes"))  # an unconstrained list is refused outright
    assert denied(
        rest.write(
            BOB, f"notes/{alice_note}", client_note(BOB), server_time=("createdAt", "updatedAt")
        )
    )
    assert denied(
        rest.write(
            BOB,
            f"notes/{alice_note}",
            {"text": "hijacked"},
            server_time=("updatedAt",),
            mask=["text", "updatedAt"],
        )
    )
    assert denied(rest.delete(BOB, f"notes/{alice_note}"))
    assert rest.get(ALICE, f"notes/{alice_note}").status_code == 200  # still there


def test_clients_cannot_write_notes_at_all(rest: Rest, alice_note: str) -> None:
    """Writes go through the API (validation, quotas); not even the owner writes here."""
    path = f"notes/c{uuid.uuid4().hex[:12]}"
    created = rest.write(
        BOB, path, client_note(BOB), server_time=("createdAt", "updatedAt"), exists=False
    )
    assert denied(created)
    assert rest.get("ADMIN", path).status_code == 404
    updated = rest.write(
        ALICE,
        f"notes/{alice_note}",
        {"text": "Edited by its owner."},
        server_time=("updatedAt",),
        mask=["text", "updatedAt"],
    )
    assert denied(updated)
    assert denied(rest.delete(ALICE, f"notes/{alice_note}"))
    assert rest.get(ALICE, f"notes/{alice_note}").status_code == 200  # still there, unchanged


@pytest.mark.parametrize(
    "overrides",
    [
        {"title": 42},  # numeric title: crashed the indexer before
        {"tags": "not-a-list"},
        {"tags": ["x" * 10_000] * 50},
        {"tags": [1, 2, 3]},
        {"text": ""},
        {"text": "   "},
        {"type": "secret"},
    ],
    ids=["numeric-title", "tags-string", "tags-huge", "tags-numbers", "empty", "blank", "type"],
)
def test_malformed_notes_are_rejected(rest: Rest, overrides: dict[str, Any]) -> None:
    for times in (("createdAt", "updatedAt"), ("updatedAt",)):  # the second: no createdAt
        response = rest.write(
            BOB,
            f"notes/c{uuid.uuid4().hex[:12]}",
            client_note(BOB, **overrides),
            server_time=times,
            exists=False,
        )
        assert denied(response), (overrides, times)


def test_owner_cannot_move_a_note_to_another_tenant(rest: Rest, alice_note: str) -> None:
    moved = rest.write(
        ALICE,
        f"notes/{alice_note}",
        {"tenantId": BOB},
        server_time=("updatedAt",),
        mask=["tenantId", "updatedAt"],
    )
    assert denied(moved)


# -- everything derived from notes: closed to clients ------------------------------

DERIVED = [
    ("noteChunks", "{id}_000"),
    ("indexState", "{id}"),
    ("tenants", ALICE),
    ("conversations", "c{id}"),
    ("messages", "m{id}"),
    ("embeddingCache", "k{id}"),
]


@pytest.mark.parametrize(("collection", "doc"), DERIVED)
@pytest.mark.parametrize("uid", [ALICE, BOB, None], ids=["owner", "other", "anonymous"])
def test_clients_never_read_or_write_derived_data(
    rest: Rest, alice_note: str, collection: str, doc: str, uid: str | None
) -> None:
    path = f"{collection}/{doc.format(id=alice_note)}"
    assert rest.get("ADMIN", path).status_code == 200, f"seed missing: {path}"
    assert denied(rest.get(uid, path))
    assert denied(rest.query(uid, collection, {"tenantId": ALICE}))
    assert denied(rest.write(uid, path, {"tenantId": ALICE, "text": "forged"}))
    assert denied(rest.delete(uid, path))


def test_reindex_jobs_are_closed(rest: Rest) -> None:
    for uid in (ALICE, None):
        assert denied(rest.query(uid, fsstore.JOBS))
        assert denied(rest.write(uid, f"{fsstore.JOBS}/j1", {"scope": "all"}))


def test_collections_named_in_the_store_are_all_covered() -> None:
    """A new collection must be added to this test (and stay closed unless the rules say so)."""
    named = {
        fsstore.NOTES,
        fsstore.CHUNKS,
        fsstore.STATES,
        fsstore.TENANTS,
        fsstore.EMBEDDINGS,
        fsstore.CONVERSATIONS,
        fsstore.MESSAGES,
        fsstore.JOBS,
    }
    covered = {"notes", fsstore.JOBS} | {c for c, _ in DERIVED}
    assert named == covered
