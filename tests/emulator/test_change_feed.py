"""GET /notes/changes against the running stack (Firestore emulator): writers
create, edit and delete while a client syncs in small pages; after a final sync the
client's copy equals the server's notes."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.emulator


class Replica:
    def __init__(self, user) -> None:
        self.user = user
        self.notes: dict[str, dict[str, Any]] = {}
        self.token: str | None = None
        self.pages = 0

    def sync(self, limit: int = 3) -> None:
        while True:
            params: dict[str, Any] = {"limit": limit}
            if self.token:
                params["since"] = self.token
            response = self.user.call("GET", "/notes/changes", params=params)
            assert response.status_code == 200, response.text
            page = response.json()
            self.pages += 1
            for change in page["changes"]:
                if change["deleted"]:
                    self.notes.pop(change["id"], None)
                else:
                    self.notes[change["id"]] = change["note"]
            self.token = page["token"]
            if not page["hasMore"]:
                return


def _server(user) -> dict[str, tuple[str, str]]:
    seen: dict[str, tuple[str, str]] = {}
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 100} | ({"cursor": cursor} if cursor else {})
        body = user.call("GET", "/notes", params=params).json()
        seen |= {n["id"]: (n["text"], n["etag"]) for n in body["notes"]}
        cursor = body["cursor"]
        if not cursor:
            return seen


@pytest.mark.parametrize("seed", range(2))
def test_interleaved_writers_and_a_syncing_client_end_equal(stack, new_user, seed) -> None:
    user = new_user()
    rng = random.Random(seed)
    client = Replica(user)
    stop = threading.Event()
    errors: list[str] = []

    def writer(n: int, rng: random.Random = rng, user=user) -> None:
        session = requests.Session()
        auth = {"Authorization": f"Bearer {user.token}"}
        mine: list[str] = []
        for i in range(15):
            roll = rng.random()
            if mine and roll < 0.35:
                r = session.patch(
                    f"{stack.api_url}/notes/{rng.choice(mine)}",
                    json={"text": f"edit {n}.{i}"},
                    headers=auth,
                    timeout=60,
                )
            elif mine and roll < 0.5:
                victim = mine.pop(rng.randrange(len(mine)))
                r = session.delete(f"{stack.api_url}/notes/{victim}", headers=auth, timeout=60)
            else:
                r = session.post(
                    f"{stack.api_url}/notes",
                    json={"text": f"new {n}.{i}"},
                    headers=auth,
                    timeout=60,
                )
                if r.status_code == 201:
                    mine.append(r.json()["id"])
            if r.status_code >= 300:
                errors.append(f"{r.request.method} {r.status_code} {r.text[:200]}")

    def syncer() -> None:
        while not stop.is_set():
            client.sync(limit=2)

    writers = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    sync_thread = threading.Thread(target=syncer)
    sync_thread.start()
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    sync_thread.join()
    assert errors == []
    client.sync(limit=2)
    mirrored = {i: (n["text"], n["etag"]) for i, n in client.notes.items()}
    assert mirrored == _server(user), seed
    assert client.pages > 3  # the client really synced while the writers ran
