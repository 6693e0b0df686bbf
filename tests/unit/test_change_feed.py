"""GET /notes/changes: what a syncing client needs, in memory."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from footnote.api import schemas
from footnote.services.notes import NotesService
from tests.inproc import Harness, envelope


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _harness(clock: Clock | None = None, settle_s: int = 0) -> Harness:
    h = Harness(SYNC_SETTLE_S=settle_s)
    c = h.container
    if clock is not None:
        c._built["notes"] = NotesService(c.settings, c.store, c.store, clock=clock)
    return h


def _feed(h: Harness, tenant: str, since: str | None = None, limit: int = 100) -> Any:
    query = f"/notes/changes?limit={limit}" + (f"&since={since}" if since else "")
    return h.call("GET", query, tenant)


class Replica:
    """A client's offline copy: applies feed pages, id -> note body."""

    def __init__(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}
        self.token: str | None = None

    def sync(self, h: Harness, tenant: str, limit: int = 3) -> None:
        while True:
            response = _feed(h, tenant, self.token, limit)
            assert response.status_code == 200, response.get_data(as_text=True)
            page = response.get_json()
            schemas.ChangePage.model_validate(page)
            for change in page["changes"]:
                if change["deleted"]:
                    self.notes.pop(change["id"], None)
                else:
                    self.notes[change["id"]] = change["note"]
            self.token = page["token"]
            if not page["hasMore"]:
                return


def _server(h: Harness, tenant: str) -> dict[str, dict[str, Any]]:
    return {
        n.id: {"text": n.text, "etag": f'"{n.version}"'}
        for n in h.store.notes.values()
        if n.tenant_id == tenant
    }


def _view(replica: Replica) -> dict[str, dict[str, Any]]:
    return {i: {"text": n["text"], "etag": n["etag"]} for i, n in replica.notes.items()}


def test_a_client_follows_creates_edits_and_deletes() -> None:
    h = _harness()
    client = Replica()
    a = h.add_note("alice", "first")
    b = h.add_note("alice", "second")
    h.add_note("bob", "not alice's")
    client.sync(h, "alice")
    assert set(client.notes) == {a, b}
    h.call("PATCH", f"/notes/{a}", "alice", json={"text": "first, edited"})
    h.call("DELETE", f"/notes/{b}", "alice")
    c = h.add_note("alice", "third")
    page = _feed(h, "alice", client.token).get_json()
    assert [(ch["id"], ch["deleted"]) for ch in page["changes"]] == [
        (a, False),
        (b, True),
        (c, False),
    ]
    assert page["changes"][1]["note"] is None
    client.sync(h, "alice")
    assert _view(client) == _server(h, "alice")
    # Nothing new: no changes, and a token that still works.
    quiet = _feed(h, "alice", client.token).get_json()
    assert quiet["changes"] == [] and not quiet["hasMore"]
    assert _feed(h, "alice", quiet["token"]).status_code == 200


def test_an_empty_account_starts_from_the_beginning() -> None:
    h = _harness()
    client = Replica()
    client.sync(h, "carol")
    assert client.notes == {}
    note = h.add_note("carol", "later")
    client.sync(h, "carol")
    assert set(client.notes) == {note}


def test_a_token_older_than_the_tombstones_is_410() -> None:
    clock = Clock()
    h = _harness(clock)
    h.add_note("alice", "x")
    token = _feed(h, "alice").get_json()["token"]
    clock.now += timedelta(days=28, hours=23)  # retention 30 days, less a day's margin
    fresh = _feed(h, "alice", token)
    assert fresh.status_code == 200
    clock.now += timedelta(hours=2)
    gone = _feed(h, "alice", token)
    assert gone.status_code == 410
    assert envelope(gone)["code"] == "sync_token_expired"
    # The newer token, from the answer before, still works for as long again.
    assert _feed(h, "alice", fresh.get_json()["token"]).status_code == 200


def test_a_change_that_becomes_visible_late_is_still_synced() -> None:
    """A commit visible only after later ones (its timestamp earlier than theirs) is
    caught by the next sync: the token stops SYNC_SETTLE_S short of the sync's start,
    and the last seconds' changes are sent again."""
    clock = Clock()
    h = _harness(clock, settle_s=30)
    client = Replica()
    late = h.add_note("alice", "v1")
    client.sync(h, "alice")
    h.add_note("alice", "another")
    client.sync(h, "alice")
    # The edit commits with a moment before the client's last sync, as a write that
    # waited on a lock does on the emulator.
    h.call("PATCH", f"/notes/{late}", "alice", json={"text": "v2"})
    moment, tenant, deleted = h.store.feed[late]
    h.store.feed[late] = (moment - timedelta(seconds=5), tenant, deleted)
    client.sync(h, "alice")
    assert client.notes[late]["text"] == "v2"
    assert _view(client) == _server(h, "alice")
    # With no settling time the same late change is missed: what the margin is for.
    clock2 = Clock()
    h2 = _harness(clock2, settle_s=0)
    client2 = Replica()
    late2 = h2.add_note("alice", "v1")
    client2.sync(h2, "alice")
    h2.add_note("alice", "another")
    client2.sync(h2, "alice")
    h2.call("PATCH", f"/notes/{late2}", "alice", json={"text": "v2"})
    moment, tenant, deleted = h2.store.feed[late2]
    h2.store.feed[late2] = (moment - timedelta(seconds=5), tenant, deleted)
    client2.sync(h2, "alice")
    assert client2.notes[late2]["text"] == "v1"


def test_pages_of_one_sync_go_forward_and_its_end_rewinds_to_the_floor() -> None:
    h = _harness(settle_s=30)
    for i in range(5):
        h.add_note("alice", f"n{i}")
    seen: list[str] = []
    token = None
    pages = 0
    while True:
        page = _feed(h, "alice", token, limit=2).get_json()
        seen += [c["id"] for c in page["changes"]]
        token, pages = page["token"], pages + 1
        if not page["hasMore"]:
            break
    assert pages == 3 and len(seen) == len(set(seen)) == 5  # no page repeats another
    again = _feed(h, "alice", token).get_json()  # the next sync re-sends the last 30 s
    assert len(again["changes"]) == 5 and not again["hasMore"]


@pytest.mark.parametrize("since", ["garbage", "x" * 1001, "eyJlIjoibm90ZXMifQ"])
def test_bad_tokens_are_400(since: str) -> None:
    h = _harness()
    response = _feed(h, "alice", since)
    assert response.status_code == 400, response.get_data(as_text=True)


@pytest.mark.parametrize("seed", range(5))
def test_concurrent_writers_and_a_syncing_client_end_equal(seed: int) -> None:
    """Writers create, edit and delete while a client syncs in small pages; after a
    final sync the client's copy equals the server's notes, every time."""
    h = _harness()
    rng = random.Random(seed)
    client = Replica()
    stop = threading.Event()

    def writer(n: int, rng: random.Random = rng) -> None:
        mine: list[str] = []
        for i in range(40):
            roll = rng.random()
            if mine and roll < 0.3:
                h.call("PATCH", f"/notes/{rng.choice(mine)}", "alice", json={"text": f"{n}.{i}"})
            elif mine and roll < 0.45:
                victim = mine.pop(rng.randrange(len(mine)))
                h.call("DELETE", f"/notes/{victim}", "alice")
            else:
                mine.append(h.add_note("alice", f"{n}.{i}"))

    def syncer() -> None:
        while not stop.is_set():
            client.sync(h, "alice", limit=2)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    sync_thread = threading.Thread(target=syncer)
    sync_thread.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    sync_thread.join()
    client.sync(h, "alice", limit=2)
    assert _view(client) == _server(h, "alice"), seed


def test_the_description_states_the_change_feed() -> None:
    spec = _harness().call("GET", "/openapi.json").get_json()
    op = spec["paths"]["/notes/changes"]["get"]
    assert {p["name"] for p in op["parameters"]} == {"since", "limit"}
    assert {"200", "410"} <= set(op["responses"])
    assert "ChangePage" in spec["components"]["schemas"]
