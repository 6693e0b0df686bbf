"""DELETE /account and the deletion job, in process (memory store, hash embedder).

The state of every in-memory adapter is dumped generically (every attribute of every
store object), so a structure added later is checked too: after the job it must be
exactly what it was before the deleted user existed (the other user's data included),
whatever step the job crashed after.
"""

from __future__ import annotations

import threading
import time
from typing import Any, cast

import pytest

from footnote.domain import DELETION_STEPS, deletion_job_id
from footnote.errors import Unauthenticated
from footnote.services.accounts import AccountService, crash_points
from footnote.services.reindexing import ReindexRequest
from tests.inproc import Harness, envelope

ALICE, BOB = "alice-7Qx", "bob-9Kz"
ALICE_EMAIL = f"{ALICE}@footnote.test"
# Words only the deleted user's data holds: found anywhere afterwards, something stayed.
SECRET = "zebraquartz"


class Crash(Exception):
    pass


def _dump(h: Harness) -> dict[str, str]:
    """Every attribute of every stateful adapter, as text (locks and the store's
    global change sequence aside)."""
    c = h.container
    parts: dict[str, Any] = {
        "store": c.store,
        "quotas": c.quota_counter,
        "jobs": c.jobs,
        "cache": c.embedding_cache,
        "term_stats": c.term_stats,
        "idempotency": c.idempotency_store,
    }
    out: dict[str, str] = {}
    for name, obj in parts.items():
        if obj is None:
            continue
        for attr, value in sorted(vars(obj).items()):
            # (_last_moment: the change feed's clock watermark, no one's data)
            if attr in ("_lock", "_seq", "fenced", "_last_moment"):
                continue
            out[f"{name}.{attr}"] = repr(_sorted(value))
    return out


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return sorted((repr(k), _sorted(v)) for k, v in value.items())
    if isinstance(value, set):
        return sorted(repr(v) for v in value)
    return value


def _bob(h: Harness) -> None:
    h.add_note(BOB, "Bob's plan: ship the garden shed on Friday.", title="Shed")
    r = h.call("POST", "/chat", BOB, json={"message": "When does the shed ship?"})
    assert r.status_code == 200
    h.index_all()


def _alice(h: Harness) -> list[str]:
    ids = [
        h.add_note(ALICE, f"We chose {SECRET} for the launch. Budget is 40k.", tags=["work"]),
        h.add_note(ALICE, f"Met Dana about {SECRET} pricing on Tuesday."),
        h.add_note(ALICE, "Groceries: oat milk, lemons."),
    ]
    h.index_all()
    r = h.call("PATCH", f"/notes/{ids[0]}", ALICE, json={"text": f"We dropped {SECRET}."})
    assert r.status_code == 200
    assert h.call("DELETE", f"/notes/{ids[2]}", ALICE).status_code == 204
    h.index_all()
    first = h.call("POST", "/chat", ALICE, json={"message": f"What about {SECRET}?"})
    assert first.status_code == 200
    follow = {"message": "And the pricing?", "conversationId": first.get_json()["conversationId"]}
    assert h.call("POST", "/chat", ALICE, json=follow).status_code == 200
    assert h.call("POST", "/search", ALICE, json={"query": SECRET}).status_code == 200
    # a create and a question sent with Idempotency-Key: their stored responses hold text
    keyed = {"Idempotency-Key": "alice-retry-1"}
    note = {"text": f"Retried: {SECRET} offsite."}
    assert h.call("POST", "/notes", ALICE, json=note, headers=keyed).status_code == 201
    asked = {"message": f"When is the {SECRET} offsite?"}
    assert h.call("POST", "/chat", ALICE, json=asked, headers=keyed).status_code == 200
    # a re-index job of the tenant, run to its end
    c = h.container
    c.reindexing.start(ReindexRequest(scope="tenant", tenant_id=ALICE))
    queue: Any = c.queue
    while queue.published:
        c.reindexing.handle(ReindexRequest.model_validate(queue.published.pop(0)))
    return ids


def _service(h: Harness, after: Any = None) -> AccountService:
    c = h.container
    return AccountService(
        c.tenant_data, c.vector_index, c.account_auth, c.account_queue, grace_s=0, after=after,
        page_size=2,  # several pages per area
        blobs=c.blobs,
    )  # fmt: skip


def _delete(h: Harness, tenant: str = ALICE, email: str = ALICE_EMAIL, **kw: Any) -> Any:
    return h.call("DELETE", "/account", tenant, json={"confirm": email}, **kw)


@pytest.fixture
def world() -> tuple[Harness, dict[str, str]]:
    h = Harness(quotas=True)
    _bob(h)
    before = _dump(h)
    _alice(h)
    assert _dump(h) != before
    return h, before


def _assert_gone(h: Harness, before: dict[str, str]) -> None:
    after = _dump(h)
    changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()}
    changed = {k: v for k, v in changed.items() if v[0] != v[1]}
    assert changed == {}, changed
    text = repr(after)
    assert ALICE not in text and SECRET not in text


@pytest.mark.parametrize("point", crash_points())
def test_a_crash_after_any_step_and_the_redelivery_leaves_nothing(world, point) -> None:
    h, before = world
    r = _delete(h)
    assert r.status_code == 202, r.get_data(as_text=True)
    body = r.get_json()
    assert body == {"jobId": deletion_job_id(ALICE), "status": "deleting"}
    queue: Any = h.container.account_queue
    assert queue.published == [{"job": "deleteAccount", "tenantId": ALICE, "jobId": body["jobId"]}]

    def crash(at: str) -> None:
        if at == point:
            raise Crash(at)

    with pytest.raises(Crash):
        _service(h, crash).run(ALICE, body["jobId"])
    job = h.container.tenant_data.deletion(body["jobId"])
    assert job is not None and not job.done
    run = _service(h).run(ALICE, body["jobId"])  # the redelivered message
    assert run.done and not run.continued
    _assert_gone(h, before)
    auth: Any = h.container.account_auth
    assert ALICE in auth.revoked and ALICE in auth.deleted
    # a third delivery finds the job finished
    assert _service(h).run(ALICE, body["jobId"]).skipped


def test_without_the_job_the_check_fails(world) -> None:
    """The dump comparison can fail: with the deletion stopped before its data steps,
    the deleted user's documents are still found."""
    h, before = world
    _delete(h)

    def stop(at: str) -> None:
        if at == "grace":
            raise Crash(at)

    with pytest.raises(Crash):
        _service(h, stop).run(ALICE, deletion_job_id(ALICE))
    with pytest.raises(AssertionError):
        _assert_gone(h, before)


def test_the_vectors_go_before_the_documents_that_name_them(world) -> None:
    h, _ = world
    removed: list[tuple[str, list[str]]] = []
    c = h.container
    seen_when_removed: list[bool] = []

    class Recording:
        name = "recording"

        def remove(self, tenant_id: str, chunk_ids: Any) -> None:
            removed.append((tenant_id, list(chunk_ids)))
            store: Any = c.store
            seen_when_removed.append(all(cid in store.chunks for cid in chunk_ids))

    chunk_ids = sorted(ch.chunk_id for ch in c.store.tenant_chunks(ALICE))
    assert chunk_ids
    _delete(h)
    service = AccountService(
        c.tenant_data,
        cast(Any, Recording()),
        c.account_auth,
        c.account_queue,
        grace_s=0,
    )
    service.run(ALICE, deletion_job_id(ALICE))
    first_pass = [cid for tenant, ids in removed for cid in ids if tenant == ALICE]
    assert set(chunk_ids) <= set(first_pass)
    assert seen_when_removed[0] is True  # the chunk step removed them while stored
    assert {t for t, _ in removed} == {ALICE}


def test_the_confirmation_must_be_the_accounts_email(world) -> None:
    h, _ = world
    for confirm in ["", "bob-9Kz@footnote.test", "alice", f"{ALICE_EMAIL}x"]:
        r = h.call("DELETE", "/account", ALICE, json={"confirm": confirm})
        assert r.status_code == 400, confirm
        assert envelope(r)["code"] == "invalid_argument"
    r = _delete(h, email=f"  {ALICE_EMAIL.upper()} ")  # case and spaces do not matter
    assert r.status_code == 202


@pytest.mark.parametrize(
    "method,path,body,query",
    [
        ("DELETE", "/account", {"confirm": f"{BOB}@footnote.test"}, None),
        ("DELETE", "/account", {"confirm": ALICE_EMAIL, "tenantId": BOB}, None),
        ("DELETE", "/account", {"confirm": ALICE_EMAIL, "uid": BOB}, None),
        ("DELETE", f"/account/{BOB}", {"confirm": f"{BOB}@footnote.test"}, None),
        ("DELETE", "/accounts", {"confirm": f"{BOB}@footnote.test"}, None),
        ("POST", "/account", {"confirm": f"{BOB}@footnote.test"}, None),
        ("DELETE", "/account", {"confirm": ALICE_EMAIL}, {"tenantId": BOB, "uid": BOB}),
    ],
)
def test_no_request_of_alice_deletes_bob(world, method, path, body, query) -> None:
    h, _ = world
    bob_before = {k: v for k, v in _dump(h).items()}
    r = h.call(method, path, ALICE, json=body, query_string=query)
    assert r.status_code in (202, 400, 404, 405), r.get_data(as_text=True)
    c = h.container
    assert not c.tenant_data.is_deleting(BOB)
    if r.status_code == 202:  # the query string is ignored: the caller's own account
        assert r.get_json()["jobId"] == deletion_job_id(ALICE)
        _service(h).run(ALICE, deletion_job_id(ALICE))
    assert [n.title for n in c.store.list_notes(BOB, 10, None).notes] == ["Shed"]
    assert c.store.tenant_chunks(BOB)
    auth: Any = c.account_auth
    assert BOB not in auth.deleted
    if r.status_code != 202:
        assert _dump(h) == bob_before


def test_without_a_token_nothing_is_deleted(world) -> None:
    h, _ = world
    r = h.call("DELETE", "/account", None, json={"confirm": ALICE_EMAIL})
    assert r.status_code == 401
    r = h.call(
        "DELETE", "/account", None, json={"confirm": ALICE_EMAIL},
        headers={"Authorization": "Bearer token-"},
    )  # fmt: skip
    assert r.status_code == 401
    assert not h.container.tenant_data.is_deleting(ALICE)


def test_replayed_and_concurrent_deletes_are_one_job(world) -> None:
    h, before = world
    results: list[Any] = []

    def go() -> None:
        results.append(_delete(h))

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {r.status_code for r in results} == {202}
    assert {r.get_json()["jobId"] for r in results} == {deletion_job_id(ALICE)}
    queue: Any = h.container.account_queue
    messages = list(queue.published)
    assert len(messages) == 8 and all(m == messages[0] for m in messages)
    # every copy of the message delivered, two at the same time
    runs = [threading.Thread(target=_service(h).run, args=(ALICE, messages[0]["jobId"]))]
    runs.append(threading.Thread(target=_service(h).run, args=(ALICE, messages[0]["jobId"])))
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    for m in messages[2:]:
        _service(h).run(m["tenantId"], m["jobId"])
    _assert_gone(h, before)
    replay = _delete(h)  # after the end: the same job, finished; nothing restarts
    assert replay.status_code == 202
    assert replay.get_json() == {"jobId": deletion_job_id(ALICE), "status": "deleted"}
    assert len(queue.published) == 8


def test_a_message_cannot_pair_a_job_with_another_tenant(world) -> None:
    from footnote.errors import BadEvent

    h, _ = world
    _delete(h)
    with pytest.raises(BadEvent):
        _service(h).run(BOB, deletion_job_id(ALICE))
    assert not h.container.tenant_data.is_deleting(BOB)


@pytest.mark.parametrize("step", DELETION_STEPS)
def test_a_note_posted_during_deletion_does_not_survive(world, step) -> None:
    h, before = world
    _delete(h)
    store = h.container.store
    refused: list[int] = []

    def post(at: str) -> None:
        if at != step:
            return
        r = h.call("POST", "/notes", ALICE, json={"text": f"late {SECRET} note"})
        refused.append(r.status_code)
        chat = h.call("POST", "/chat", ALICE, json={"message": f"late {SECRET}?"})
        refused.append(chat.status_code)
        # a request that passed the API's check before the fence: the store refuses it
        from footnote.services.notes import NotesService

        with pytest.raises(Unauthenticated):
            NotesService(h.container.settings, store, store).create(
                ALICE, f"in-flight {SECRET}", None, None, None
            )

    _service(h, post).run(ALICE, deletion_job_id(ALICE))
    assert refused == [401, 401]
    _assert_gone(h, before)
    # and after the job: the fence stays, so a token still valid writes nothing
    assert h.call("POST", "/notes", ALICE, json={"text": "after"}).status_code == 401
    _assert_gone(h, before)


def test_notes_posted_concurrently_with_the_job_do_not_survive(world) -> None:
    h, before = world
    stop = threading.Event()
    codes: list[int] = []

    def hammer() -> None:
        while not stop.is_set():
            codes.append(
                h.call("POST", "/notes", ALICE, json={"text": f"{SECRET} race"}).status_code
            )

    thread = threading.Thread(target=hammer)
    thread.start()
    deadline = time.monotonic() + 60
    try:
        while not any(c == 201 for c in codes) and time.monotonic() < deadline:
            time.sleep(0.001)
        _delete(h)
        # The job's grace wait lets requests already past the fence finish before it
        # deletes (330 s in production); here, the writer's requests after the fence are
        # refused, and the one in flight ends, before the job runs.
        while 401 not in codes and time.monotonic() < deadline:
            time.sleep(0.001)
    finally:
        stop.set()
        thread.join(timeout=60)
    _service(h).run(ALICE, deletion_job_id(ALICE))
    assert 401 in codes
    h.index_all()  # late indexer runs of the notes that were created write nothing
    _assert_gone(h, before)


def test_the_indexer_writes_nothing_for_a_tenant_being_deleted(world) -> None:
    from footnote.services.indexing import Outcome

    h, _ = world
    c = h.container
    note_id = c.store.list_notes(ALICE, 1, None).notes[0].id
    _delete(h)
    assert c.indexing.index_note(note_id, force=True).outcome is Outcome.ACCOUNT_DELETED
    _service(h).run(ALICE, deletion_job_id(ALICE))
    assert c.indexing.index_note(note_id).outcome is Outcome.REMOVED
    assert c.store.index_state(note_id) is None


def test_the_account_is_not_found_once_its_user_is_gone(world) -> None:
    h, _ = world
    auth: Any = h.container.account_auth
    auth.delete(ALICE)
    r = _delete(h)
    assert r.status_code == 404 and envelope(r)["code"] == "not_found"


def _run_published(h: Harness) -> list[dict[str, Any]]:
    """Deliver the accounts topic's messages until none is left; what was delivered."""
    queue: Any = h.container.account_queue
    service = _service(h)
    delivered: list[dict[str, Any]] = []
    while queue.published:
        m = queue.published.pop(0)
        delivered.append(m)
        if m["job"] == "sweepAccounts":
            service.sweep(m.get("after"))
        else:
            service.run(m["tenantId"], m["jobId"])
    return delivered


def test_the_sweep_deletes_a_tenant_whose_auth_user_was_deleted_elsewhere(world) -> None:
    h, before = world
    auth: Any = h.container.account_auth
    auth.delete(ALICE)  # from the console: no DELETE /account, no job
    assert h.container.tenant_data.deletion(deletion_job_id(ALICE)) is None
    run = _service(h).sweep()
    assert run.begun == (ALICE,) and run.checked == 2 and not run.continued
    delivered = _run_published(h)
    assert [m["tenantId"] for m in delivered] == [ALICE]
    _assert_gone(h, before)
    # The next sweep finds nothing to do: Alice is gone, Bob still has his account.
    assert _service(h).sweep().begun == ()


def test_the_sweep_leaves_every_tenant_with_an_account_alone(world) -> None:
    h, _ = world
    before = _dump(h)
    assert _service(h).sweep().begun == ()
    queue: Any = h.container.account_queue
    assert queue.published == []
    assert _dump(h) == before


def test_a_sweep_out_of_time_continues_from_where_it_stopped(world) -> None:
    h, before = world
    auth: Any = h.container.account_auth
    auth.delete(ALICE)
    ticks = iter(range(0, 10_000, 1000))  # every page takes 1000 s of a 420 s budget
    c = h.container
    service = AccountService(
        c.tenant_data, c.vector_index, c.account_auth, c.account_queue, grace_s=0,
        page_size=1, monotonic=lambda: float(next(ticks)),
    )  # fmt: skip
    first = service.sweep()
    assert first.continued and first.checked == 1 and first.begun == (ALICE,)  # "alice" < "bob"
    queue: Any = c.account_queue
    assert queue.published[-1] == {"job": "sweepAccounts", "after": ALICE}
    _run_published(h)
    _assert_gone(h, before)


def test_an_auth_lookup_that_fails_deletes_nothing(world) -> None:
    h, _ = world
    c = h.container

    class Down:
        def user(self, uid: str) -> Any:
            raise ConnectionError("Firebase Auth unreachable")

    service = AccountService(
        c.tenant_data, c.vector_index, cast(Any, Down()), c.account_queue, grace_s=0
    )
    with pytest.raises(ConnectionError):
        service.sweep()
    assert c.tenant_data.deletion(deletion_job_id(ALICE)) is None


def _sweeper(h: Harness) -> AccountService:
    c = h.container
    return AccountService(
        c.tenant_data, c.vector_index, c.account_auth, c.account_queue, grace_s=0,
        blobs=c.blobs,
    )  # fmt: skip


def test_the_sweep_deletes_a_file_that_arrived_after_the_account_was_deleted(world) -> None:
    h, _ = world
    c = h.container
    with c.blobs.open_write(f"users/{BOB}/uploads/s1/keep.zip", "application/zip") as f:
        f.write(b"bob's archive")
    assert _delete(h).status_code == 202
    _run_published(h)
    assert list(c.blobs.names(f"users/{ALICE}/")) == []
    # An upload session handed out before the deletion completes after it.
    with c.blobs.open_write(f"users/{ALICE}/uploads/s2/late.zip", "application/zip") as f:
        f.write(SECRET.encode())
    run = _sweeper(h).sweep()
    assert run.files == (ALICE,) and run.begun == ()
    assert list(c.blobs.names(f"users/{ALICE}/")) == []
    assert list(c.blobs.names(f"users/{BOB}/")) == [f"users/{BOB}/uploads/s1/keep.zip"]
    assert _sweeper(h).sweep().files == ()  # nothing left to do


def test_the_sweep_starts_the_deletion_of_a_user_who_left_only_files(world) -> None:
    h, _ = world
    c = h.container
    gone = "carol-1Zz"  # only an upload of hers is left, and she was deleted elsewhere
    with c.blobs.open_write(f"users/{gone}/uploads/s3/a.zip", "application/zip") as f:
        f.write(b"carol's")
    auth: Any = c.account_auth
    auth.delete(gone)
    run = _sweeper(h).sweep()
    assert run.begun == () and run.files == ()  # her files are her deletion job's
    queue: Any = c.account_queue
    assert [m.get("tenantId") for m in queue.published] == [gone]
    _run_published(h)
    assert list(c.blobs.names(f"users/{gone}/")) == []
    assert list(c.blobs.names("users/")) == []


def test_the_sweep_leaves_the_files_of_users_who_exist_alone(world) -> None:
    h, _ = world
    c = h.container
    with c.blobs.open_write(f"users/{ALICE}/uploads/s4/mine.zip", "application/zip") as f:
        f.write(b"alice's")
    run = _sweeper(h).sweep()
    assert run.begun == () and run.files == ()
    assert list(c.blobs.names(f"users/{ALICE}/")) == [f"users/{ALICE}/uploads/s4/mine.zip"]


def test_the_request_itself_ends_the_users_sessions(world) -> None:
    h, _ = world
    auth: Any = h.container.account_auth
    assert _delete(h).status_code == 202
    assert ALICE in auth.revoked  # before any job message was delivered
    queue: Any = h.container.account_queue
    assert queue.published  # the job is still to run


def test_a_repeated_delete_with_the_same_token_answers_the_same_job(world) -> None:
    """The request revokes the account's sessions at once; its retry (an answer lost
    on the way) still gets the job, as the README says, while every other request of
    that token is refused."""
    h, _ = world
    auth: Any = h.container.account_auth
    tokens = h.api._verifier

    class Revoking:
        """The token table, refusing accounts revoked or gone as Firebase Auth does."""

        def verify(self, token: str, fresh: bool = False, check_account: bool = True) -> str:
            uid: str = tokens.verify(token, fresh)
            if check_account and (uid in auth.revoked or auth.user(uid) is None):
                raise Unauthenticated("a valid Firebase ID token is required")
            return uid

    h.api._verifier = Revoking()
    first = _delete(h)
    assert first.status_code == 202
    again = _delete(h)
    assert again.status_code == 202, again.get_data(as_text=True)
    assert again.get_json() == first.get_json()
    assert _delete(h, email="someone@else.test").status_code == 400  # still checked
    assert h.call("GET", "/notes", ALICE).status_code == 401  # nothing else of that token
    assert h.call("POST", "/notes", ALICE, json={"text": "x"}).status_code == 401
    _run_published(h)
    done = _delete(h)
    assert done.status_code == 202
    assert done.get_json() == {"jobId": deletion_job_id(ALICE), "status": "deleted"}
    auth.revoke(BOB)  # signed out everywhere, not deleting: that token stays refused
    assert _delete(h, BOB, f"{BOB}@footnote.test").status_code == 401
    assert not h.container.tenant_data.is_deleting(BOB)


def _vault(count: int) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(count):
            z.writestr(f"v/{i:03}.md", f"# Plan {i}\nThe {SECRET} plan, part {i}.\n")
    return buffer.getvalue()


def test_deleting_while_an_import_runs_leaves_no_counter_and_drops_its_message(
    world, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The account is deleted between two pages of its import: the run stops before
    its next write (no quota counter written, none re-created by a give-back), and the
    message, delivered again after the job's record is gone, is acknowledged rather
    than failing into the dead-letter topic with the uid in it."""
    import footnote.entrypoints
    from footnote.services.imports import AccountClosing

    h, before = world
    c = h.container
    r = h.call(
        "POST", "/imports?name=v.zip", ALICE, data=_vault(120),
        headers={"Content-Type": "application/zip"},
    )  # fmt: skip
    assert r.status_code == 202, r.get_data(as_text=True)
    queue: Any = c.account_queue
    message = queue.published.pop(0)
    imports = c.imports
    real_fence = imports._fence
    checks = 0

    def fence(tenant: str) -> bool:
        nonlocal checks
        checks += 1
        if checks == 3:  # the second page, once embedded: the user deletes the account
            assert _delete(h).status_code == 202
            _run_published(h)
        return bool(real_fence(tenant))

    imports._fence = fence
    with pytest.raises(AccountClosing):
        imports.run(message["tenantId"], message["jobId"])
    imports._fence = real_fence
    _run_published(h)  # the deletion finishes whatever the run wrote before
    monkeypatch.setattr(footnote.entrypoints, "container", lambda: c)
    footnote.entrypoints.handle_account_job(message)  # a redelivery: acknowledged
    footnote.entrypoints.handle_account_job({**message, "job": "exportNotes"})
    _assert_gone(h, before)


def test_a_counter_given_back_keeps_its_window_expiry() -> None:
    """A give-back (a note write that failed, a /chat that failed) writes the
    counter's TTL field too: a counter it re-creates is never kept for ever."""
    from datetime import UTC, datetime

    from footnote.services.quotas import QuotaService
    from tests.inproc import settings

    writes: list[tuple[str, int, Any]] = []

    class Recording:
        def consume(self, key: str, amount: int, limit: int, expires_at: Any) -> int:
            writes.append((key, amount, expires_at))
            return 1

        def value(self, key: str) -> int:
            return 0

    now = datetime(2026, 12, 7, 15, 30, 10, tzinfo=UTC)
    quotas = QuotaService(settings(), Recording(), clock=lambda: now)
    quotas.release(quotas.reserve_note(ALICE, 10, True))
    with pytest.raises(RuntimeError), quotas.charged(ALICE, "chat"):
        raise RuntimeError
    windows = [(key, amount, expires) for key, amount, expires in writes if "Chars" not in key]
    assert [amount for _, amount, _ in windows] == [1, -1, 1, -1]
    assert all(expires is not None for _, _, expires in windows), windows
    assert windows[0][2] == windows[1][2] and windows[2][2] == windows[3][2]


def test_upload_sessions_handed_out_before_the_deletion_are_cancelled(world) -> None:
    """An upload URL outlived its account: Cloud Storage keeps a session open for a
    week, and a PUT after the deletion created users/{uid}/uploads/…. The files step
    cancels every session the user was handed, and forgets it."""
    from footnote.adapters.memory_blobs import MemoryBlobStore

    h, _ = world
    c = h.container

    class SessionBlobs(MemoryBlobStore):
        """Memory files, plus the sessions a Cloud Storage store hands out."""

        def __init__(self) -> None:
            super().__init__()
            self.open: set[str] = set()
            self.cancelled: list[str] = []

        def upload_session(self, name: str, content_type: str, size: int, origin: Any) -> str:
            url = f"https://storage.example/upload?session={len(self.open) + 1}"
            self.open.add(url)
            return url

        def cancel_upload(self, url: str) -> None:
            self.cancelled.append(url)
            self.open.discard(url)

    blobs = SessionBlobs()
    c._built["blobs"] = blobs
    for built in ("imports", "accounts"):
        c._built.pop(built, None)
    urls = []
    for name in ("a.zip", "b.enex"):
        r = h.call("POST", "/uploads", ALICE, json={"name": name, "size": 10})
        assert r.status_code == 201, r.get_data(as_text=True)
        urls.append(r.get_json()["uploadUrl"])
    bob = h.call("POST", "/uploads", BOB, json={"name": "c.zip", "size": 10}).get_json()
    assert _delete(h).status_code == 202
    queue: Any = c.account_queue
    while queue.published:
        m = queue.published.pop(0)
        c.accounts.run(m["tenantId"], m["jobId"])
    assert sorted(blobs.cancelled) == sorted(urls)
    assert blobs.open == {bob["uploadUrl"]}  # another user's session is left alone
    assert c.import_jobs.uploads(ALICE, 10) == []
    assert [url for _, url in c.import_jobs.uploads(BOB, 10)] == [bob["uploadUrl"]]


def test_account_deletion_removes_the_index_snapshot(world) -> None:
    from footnote.adapters.blob_snapshots import BlobIndexSnapshots
    from footnote.retrieval.corpus import CorpusCache

    h, _ = world
    c = h.container
    snapshots = BlobIndexSnapshots(c.blobs)
    # A cold load writes the tenant's snapshot among its files (as BLOB_STORE=gcs does).
    CorpusCache(c.store, snapshots=snapshots, run_writes=lambda job: job()).get(ALICE)
    CorpusCache(c.store, snapshots=snapshots, run_writes=lambda job: job()).get(BOB)
    assert snapshots.read(ALICE) is not None and snapshots.read(BOB) is not None
    assert _delete(h).status_code == 202
    _run_published(h)
    assert snapshots.read(ALICE) is None
    assert list(c.blobs.names(f"users/{ALICE}/")) == []
    assert snapshots.read(BOB) is not None  # another tenant's stays
