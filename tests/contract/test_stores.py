"""One contract for the note, chunk, conversation and embedding-cache ports,
run against every adapter: in-memory, and Firestore on the real emulator."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from footnote.domain import ChangeMark, IndexState, IndexStatus, MemoryType, NoteChanges, Turn
from footnote.errors import InvalidRequest, PreconditionFailed, Unauthenticated
from footnote.ports import (
    ATOMIC_WRITES,
    ChunkStore,
    ConversationStore,
    JobStore,
    NewNote,
    NoteStore,
)
from tests.factories import NOW, chunk, note


@pytest.fixture
def store(each_store):
    return each_store


def _ids() -> tuple[str, str]:
    u = uuid.uuid4().hex[:8]
    return f"tenant-{u}", f"note-{u}"


def test_adapters_implement_the_ports(store) -> None:
    assert isinstance(store, NoteStore) and isinstance(store, ChunkStore)
    assert isinstance(store, ConversationStore)


def test_notes_are_tenant_scoped(store) -> None:
    tenant, nid = _ids()
    store.create_note(note(nid, "hello", tenant))
    assert store.get_note(tenant, nid).text == "hello"
    assert store.get_note("someone-else", nid) is None
    assert store.update_note("someone-else", nid, NoteChanges(text="x"), NOW) is None
    assert store.delete_note("someone-else", nid) is None
    assert store.read_note(nid).tenant_id == tenant
    assert store.index_state(nid).status is IndexStatus.PENDING


def test_delete_returns_the_note_it_deleted(store) -> None:
    """The stored-characters quota gives back the length of what went: the note as
    the delete found it (after any edit), once."""
    tenant, nid = _ids()
    store.create_note(note(nid, "short", tenant))
    store.update_note(tenant, nid, NoteChanges(text="a longer text"), NOW)
    deleted = store.delete_note(tenant, nid)
    assert deleted is not None and (deleted.id, deleted.text) == (nid, "a longer text")
    assert deleted.tenant_id == tenant
    assert store.delete_note(tenant, nid) is None
    assert store.get_note(tenant, nid) is None


def test_update_returns_what_it_replaced_and_what_it_wrote(store) -> None:
    """The stored-characters quota counts an edit as new length - replaced length: the
    note as the update found it (after any earlier edit), and as it wrote it."""
    tenant, nid = _ids()
    store.create_note(note(nid, "short", tenant))
    later = NOW + timedelta(minutes=1)
    first = store.update_note(tenant, nid, NoteChanges(text="a longer text"), later)
    assert (first.before.text, first.after.text) == ("short", "a longer text")
    second = store.update_note(tenant, nid, NoteChanges(text="tiny", title="t"), later)
    assert (second.before.id, second.before.tenant_id) == (nid, tenant)
    assert (second.before.text, second.before.title) == ("a longer text", "")
    assert (second.after.text, second.after.title) == ("tiny", "t")
    assert second.after == store.get_note(tenant, nid)
    # Tags only: the text replaced is the text kept.
    third = store.update_note(tenant, nid, NoteChanges(tags=("x",)), later)
    assert third.before.text == third.after.text == "tiny"
    assert third.before.tags == () and third.after.tags == ("x",)


def test_every_write_moves_the_version_and_if_match_guards_it(store) -> None:
    """ETags: the version a write replaced must be one the caller named, or nothing
    is written and the error carries the current note."""
    tenant, nid = _ids()
    created = store.create_note(note(nid, "v1", tenant, version=1))
    assert created.version == 1 and store.get_note(tenant, nid).version == 1
    edit = store.update_note(tenant, nid, NoteChanges(title="t"), NOW, frozenset({1}))
    assert (edit.before.version, edit.after.version) == (1, 2)
    assert store.get_note(tenant, nid).version == 2
    with pytest.raises(PreconditionFailed) as stale:
        store.update_note(tenant, nid, NoteChanges(text="lost"), NOW, frozenset({1}))
    assert stale.value.current.version == 2 and stale.value.current.text == "v1"
    assert store.get_note(tenant, nid).text == "v1"
    with pytest.raises(PreconditionFailed):
        store.update_note(tenant, nid, NoteChanges(text="lost"), NOW, frozenset())
    # Without If-Match, the last write wins and still moves the version.
    assert store.update_note(tenant, nid, NoteChanges(text="v3"), NOW).after.version == 3
    with pytest.raises(PreconditionFailed) as stale_delete:
        store.delete_note(tenant, nid, frozenset({2}))
    assert stale_delete.value.current.text == "v3"
    assert store.get_note(tenant, nid) is not None
    assert store.delete_note(tenant, nid, frozenset({2, 3})).version == 3
    assert store.get_note(tenant, nid) is None
    # A note that is gone is simply not found, whatever the If-Match.
    assert store.update_note(tenant, nid, NoteChanges(text="x"), NOW, frozenset({3})) is None


def test_the_change_feed_lists_latest_states_and_tombstones_in_commit_order(store) -> None:
    tenant, base = _ids()
    a, b, c = f"{base}-a", f"{base}-b", f"{base}-c"
    for nid in (a, b, c):
        store.create_note(note(nid, nid, tenant, version=1))
    store.create_note(note(f"{base}-other", "x", "someone-else", version=1))
    start = store.note_changes(tenant, None, 10)
    assert [ch.mark.note_id for ch in start.changes] == [a, b, c] and not start.more
    assert start.last == start.changes[-1].mark
    store.update_note(tenant, a, NoteChanges(text="a2"), NOW)
    store.delete_note(tenant, b)
    after = store.note_changes(tenant, start.last, 10)
    assert [(ch.mark.note_id, ch.note and ch.note.text) for ch in after.changes] == [
        (a, "a2"),
        (b, None),  # a tombstone
    ]
    marks = [ch.mark for ch in after.changes]
    assert marks == sorted(marks, key=lambda m: (m.moment, m.note_id))
    assert marks[0].moment > start.last.moment
    # Paged: one at a time, each page going on from the last.
    first = store.note_changes(tenant, start.last, 1)
    assert [ch.mark.note_id for ch in first.changes] == [a] and first.more
    second = store.note_changes(tenant, first.last, 1)
    assert [ch.mark.note_id for ch in second.changes] == [b] and not second.more
    nothing = store.note_changes(tenant, second.last, 10)
    assert nothing.changes == [] and nothing.last is None and not nothing.more
    # A floor (no id): every change at or after the moment.
    floor = ChangeMark(after.changes[0].mark.moment, "")
    assert [ch.mark.note_id for ch in store.note_changes(tenant, floor, 10).changes] == [a, b]


def test_update_marks_pending_only_when_content_changes(store) -> None:
    tenant, nid = _ids()
    store.create_note(note(nid, "hello", tenant))
    store.set_index_state(IndexState(nid, tenant, IndexStatus.INDEXED, "h", 1, "m"))
    later = NOW + timedelta(minutes=1)
    updated = store.update_note(tenant, nid, NoteChanges(tags=("a",)), later).after
    assert updated.tags == ("a",) and updated.updated_at == later
    assert store.index_state(nid).status is IndexStatus.INDEXED
    store.update_note(tenant, nid, NoteChanges(text="changed", type=MemoryType.TASK), later)
    assert store.read_note(nid).type is MemoryType.TASK
    assert store.index_state(nid).status is IndexStatus.PENDING
    cleared = store.update_note(tenant, nid, NoteChanges(clear_type=True), later).after
    assert cleared.type is None


def test_list_pages_newest_first_without_gaps(store) -> None:
    tenant, base = _ids()
    ids = [f"{base}-{i}" for i in range(5)]
    for i, nid in enumerate(ids):
        store.create_note(note(nid, f"n{i}", tenant, days_ago=5 - i))
    store.create_note(note(f"{base}-other", "x", "another-tenant"))
    seen, cursor = [], None
    while True:
        page = store.list_notes(tenant, 2, cursor)
        seen += [n.id for n in page.notes]
        cursor = page.cursor
        if cursor is None:
            break
    assert seen == list(reversed(ids))
    with pytest.raises(InvalidRequest):
        store.list_notes(tenant, 2, "not-a-cursor")


def test_note_ids_page_in_id_order(store) -> None:
    tenant, base = _ids()
    for i in range(4):
        store.create_note(note(f"{base}-{i}", "x", tenant))
    first = store.note_ids(tenant, None, 3)
    rest = store.note_ids(tenant, first[-1], 3)
    assert first + rest == [f"{base}-{i}" for i in range(4)]


def test_replace_chunks_swaps_atomically_and_bumps_version(store) -> None:
    tenant, nid = _ids()
    n = store.create_note(note(nid, "first text", tenant))
    v0 = store.tenant_version(tenant)
    old = [chunk(f"{nid}_000", "a", tenant), chunk(f"{nid}_001", "b", tenant)]
    state = IndexState(nid, tenant, IndexStatus.INDEXED, "h1", 2, "m")
    assert store.replace_chunks(n, old, state) == []
    assert store.tenant_version(tenant) == v0 + 1
    new = [chunk(f"{nid}_000", "c", tenant)]
    assert store.replace_chunks(n, new, dataclasses.replace(state, chunk_count=1)) == [f"{nid}_001"]
    got = {c.chunk_id: c for c in store.tenant_chunks(tenant)}
    assert list(got) == [f"{nid}_000"] and got[f"{nid}_000"].text == "c"
    assert got[f"{nid}_000"].embedding == pytest.approx(new[0].embedding)
    assert store.index_state(nid).chunk_count == 1


def test_replace_chunks_refuses_a_stale_version(store) -> None:
    tenant, nid = _ids()
    n = store.create_note(note(nid, "v1", tenant))
    store.update_note(tenant, nid, NoteChanges(text="v2"), NOW)
    state = IndexState(nid, tenant, IndexStatus.INDEXED, "h", 1, "m")
    assert store.replace_chunks(n, [chunk(f"{nid}_000", "v1", tenant)], state) is None
    assert store.tenant_chunks(tenant) == []


def test_remove_chunks_only_once_the_note_is_gone(store) -> None:
    tenant, nid = _ids()
    n = store.create_note(note(nid, "x", tenant))
    store.replace_chunks(
        n, [chunk(f"{nid}_000", "x", tenant)], IndexState(nid, tenant, IndexStatus.INDEXED)
    )
    deleted = IndexState(nid, tenant, IndexStatus.DELETED)
    assert store.remove_chunks(nid, deleted) is None
    assert store.delete_note(tenant, nid)
    assert store.remove_chunks(nid, deleted) == [f"{nid}_000"]
    assert store.tenant_chunks(tenant) == []
    assert store.index_state(nid).status is IndexStatus.DELETED
    assert store.remove_chunks(nid, deleted) == []


def test_unindexed_lists_pending_and_failed(store) -> None:
    tenant, base = _ids()
    for i, status in enumerate([IndexStatus.PENDING, IndexStatus.INDEXED, IndexStatus.FAILED]):
        nid = f"zz{base}-{i}"
        store.create_note(note(nid, "x", tenant))
        store.set_index_state(IndexState(nid, tenant, status))
    found = [i for i in store.unindexed_note_ids(f"zz{base}", 100) if i.startswith(f"zz{base}")]
    assert found == [f"zz{base}-0", f"zz{base}-2"]


def test_conversations_are_tenant_scoped(store) -> None:
    tenant, cid = _ids()
    turns = [
        Turn(f"{cid}-u", cid, tenant, "user", "q?", NOW),
        Turn(f"{cid}-a", cid, tenant, "assistant", "a [N1].", NOW, ({"cid": "N1", "noteId": "n"},)),
    ]
    store.append_turns(turns)
    got = store.conversation_turns(tenant, cid)
    assert [t.role for t in got] == ["user", "assistant"]
    assert store.conversation_turns("intruder", cid) is None
    assert store.turn(tenant, f"{cid}-a").citations[0]["noteId"] == "n"
    assert store.turn("intruder", f"{cid}-a") is None


def _exchange(cid: str, tenant: str, question: str, at, n: int) -> list[Turn]:
    return [
        Turn(f"{cid}-u{n}", cid, tenant, "user", question, at),
        Turn(f"{cid}-a{n}", cid, tenant, "assistant", "an answer.", at),
    ]


def test_conversations_list_latest_activity_first_in_pages(store) -> None:
    tenant, base = _ids()
    ids = [f"{base}-c{i}" for i in range(5)]
    for i, cid in enumerate(ids):
        store.append_turns(_exchange(cid, tenant, f"question {i}?", NOW + timedelta(minutes=i), 0))
    store.append_turns(_exchange(f"{base}-other", "another-tenant", "theirs?", NOW, 0))
    # A follow-up in the oldest conversation makes it the most recent, and counts.
    later = NOW + timedelta(hours=1)
    store.append_turns(_exchange(ids[0], tenant, "and then?", later, 1))

    seen, cursor = [], None
    while True:
        page = store.list_conversations(tenant, 2, cursor)
        assert len(page.conversations) <= 2
        seen += page.conversations
        cursor = page.cursor
        if cursor is None:
            break
    assert [c.id for c in seen] == [ids[0], ids[4], ids[3], ids[2], ids[1]]
    top = seen[0]
    assert (top.tenant_id, top.title, top.message_count) == (tenant, "question 0?", 4)
    assert top.created_at == NOW and top.updated_at == later
    assert [(c.title, c.message_count) for c in seen[1:]] == [
        ("question 4?", 2),
        ("question 3?", 2),
        ("question 2?", 2),
        ("question 1?", 2),
    ]
    assert seen[1].created_at == seen[1].updated_at == NOW + timedelta(minutes=4)
    assert store.list_conversations("intruder", 10, None).conversations == []
    everything = store.list_conversations(tenant, 100, None)
    assert len(everything.conversations) == 5 and everything.cursor is None
    with pytest.raises(InvalidRequest):
        store.list_conversations(tenant, 2, "not-a-cursor")


def test_conversations_with_the_same_activity_page_by_id(store) -> None:
    tenant, base = _ids()
    ids = sorted(f"{base}-t{i}" for i in range(4))
    for cid in ids:
        store.append_turns(_exchange(cid, tenant, "same time?", NOW, 0))
    seen, cursor = [], None
    while True:
        page = store.list_conversations(tenant, 1, cursor)
        seen += [c.id for c in page.conversations]
        cursor = page.cursor
        if cursor is None:
            break
    assert seen == ids[::-1]


def test_a_firestore_conversation_stored_before_summaries_lists_and_then_keeps_one(
    direct_firestore_client,
) -> None:
    """Before listing existed, a conversation document held only tenantId and
    updatedAt: it is listed from its turns, and its next turn stores a summary."""
    from footnote.adapters.firestore_conversations import _message_doc
    from footnote.adapters.firestore_store import CONVERSATIONS, MESSAGES, FirestoreStore

    client = direct_firestore_client
    store = FirestoreStore(client)
    tenant, base = _ids()
    cid = f"{base}-legacy"
    client.collection(CONVERSATIONS).document(cid).set({"tenantId": tenant, "updatedAt": NOW})
    for t in _exchange(cid, tenant, "an  old\nquestion?", NOW, 0):
        client.collection(MESSAGES).document(t.message_id).set(_message_doc(t))
    (listed,) = store.list_conversations(tenant, 10, None).conversations
    assert (listed.id, listed.title, listed.message_count) == (cid, "an old question?", 2)
    assert listed.created_at == listed.updated_at == NOW
    later = NOW + timedelta(minutes=3)
    store.append_turns(_exchange(cid, tenant, "and now?", later, 1))
    stored = client.collection(CONVERSATIONS).document(cid).get().to_dict()
    assert stored["messageCount"] == 4 and stored["title"] == "an old question?"
    assert stored["createdAt"] == NOW and stored["updatedAt"] == later


def test_embedding_cache_round_trip(store) -> None:
    if not hasattr(store, "get_many"):
        from footnote.adapters.cached_embedder import MemoryEmbeddingCache

        store = MemoryEmbeddingCache()
    key = uuid.uuid4().hex
    assert store.get_many([key]) == {}
    store.put_many({key: [0.5, -0.25]})
    assert store.get_many([key, "missing"]) == {key: [0.5, -0.25]}
    # Exact to the last bit, whatever the store keeps: a cached vector is the vector.
    exact = [0.1, 1 / 3, -2.0e-300, 123456.789]
    store.put_many({key: exact})
    assert store.get_many([key]) == {key: exact}


def test_firestore_embedding_cache_reads_a_vector_stored_as_a_list(direct_firestore_client) -> None:
    from footnote.adapters.firestore_common import EMBEDDINGS
    from footnote.adapters.firestore_store import FirestoreStore

    key = uuid.uuid4().hex
    direct_firestore_client.collection(EMBEDDINGS).document(key).set(
        {"vector": [0.5, -0.25], "tenantId": None}
    )
    assert FirestoreStore(direct_firestore_client).get_many([key]) == {key: [0.5, -0.25]}


def test_the_change_log_names_exactly_the_notes_changed_since_a_mark(store) -> None:
    tenant, base = _ids()
    state = IndexState(base, tenant, IndexStatus.INDEXED, "h", 1, "m")
    notes = [store.create_note(note(f"{base}-{i}", f"text {i}", tenant)) for i in range(3)]
    for n in notes:
        store.replace_chunks(n, [chunk(f"{n.id}_000", n.text, tenant)], state)
    version, mark = store.tenant_version_mark(tenant)
    assert version == store.tenant_version(tenant) and version >= 3
    assert store.notes_changed_since(tenant, mark, 10) == []
    assert store.notes_changed_since(tenant, None, 10) is None  # no mark: load everything
    # An index write, an edit and a delete through the API each count as a change.
    store.replace_chunks(notes[0], [chunk(f"{notes[0].id}_000", "new text", tenant)], state)
    store.update_note(tenant, notes[1].id, NoteChanges(text="edited"), NOW + timedelta(1))
    store.update_note(tenant, notes[2].id, NoteChanges(tags=("only-tags",)), NOW + timedelta(1))
    other_tenant, other = _ids()
    store.create_note(note(other, "x", other_tenant))
    other_state = IndexState(other, other_tenant, IndexStatus.INDEXED, "h", 1, "m")
    store.replace_chunks(
        store.read_note(other), [chunk(f"{other}_000", "x", other_tenant)], other_state
    )
    changed = store.notes_changed_since(tenant, mark, 10)
    assert sorted(changed) == sorted([notes[0].id, notes[1].id])
    assert store.notes_changed_since(tenant, mark, 1) is None  # too far behind
    assert store.tenant_version_mark(tenant)[0] > version
    # The changed notes' chunks, and nothing else, are what a patch reads.
    got = store.chunks_of_notes(tenant, changed)
    assert [(c.chunk_id, c.text) for c in got] == [(f"{notes[0].id}_000", "new text")]
    assert store.chunks_of_notes(other_tenant, changed) == []


def test_get_chunks_reads_the_winners_and_drops_deleted_and_edited_notes(store) -> None:
    tenant, base = _ids()
    state = IndexState(base, tenant, IndexStatus.INDEXED, "h", 1, "m")
    notes = [store.create_note(note(f"{base}-{i}", f"text {i}", tenant)) for i in range(3)]
    for n in notes:
        store.replace_chunks(n, [chunk(f"{n.id}_000", n.text, tenant)], state)
    ids = [f"{n.id}_000" for n in reversed(notes)]
    assert [c.chunk_id for c in store.get_chunks(tenant, ids)] == ids  # in the order asked
    assert store.get_chunks("someone-else", ids) == []
    assert store.delete_note(tenant, notes[0].id)
    store.update_note(tenant, notes[1].id, NoteChanges(text="edited"), NOW + timedelta(1))
    # No indexer has run: the API's own transaction dropped both notes' chunks.
    assert [c.chunk_id for c in store.get_chunks(tenant, ids)] == [f"{notes[2].id}_000"]
    # The indexer still learns which vectors to remove.
    deleted = IndexState(notes[0].id, tenant, IndexStatus.DELETED)
    assert store.remove_chunks(notes[0].id, deleted) == [f"{notes[0].id}_000"]
    edited = store.read_note(notes[1].id)
    fresh = [chunk(f"{notes[1].id}_000", "edited", tenant)]
    assert store.replace_chunks(edited, fresh, state) == []
    assert store.get_chunks(tenant, [f"{notes[1].id}_000"])[0].text == "edited"


def test_withdraw_chunks_drops_a_live_notes_chunks_and_names_them(store) -> None:
    tenant, nid = _ids()
    n = store.create_note(note(nid, "x", tenant))
    store.replace_chunks(
        n, [chunk(f"{nid}_000", "x", tenant)], IndexState(nid, tenant, IndexStatus.INDEXED)
    )
    _, mark = store.tenant_version_mark(tenant)
    failed = IndexState(nid, tenant, IndexStatus.FAILED, error="MalformedNote", attempts=1)
    assert store.withdraw_chunks(failed) == [f"{nid}_000"]
    # The reason is written with the withdrawal: no reader sees one without the other.
    state = store.index_state(nid)
    assert (state.status, state.error) == (IndexStatus.FAILED, "MalformedNote")
    assert store.get_chunks(tenant, [f"{nid}_000"]) == []
    assert store.notes_changed_since(tenant, mark, 10) == [nid]
    assert store.read_note(nid) is not None  # the note itself stays


# -- JobStore ------------------------------------------------------------------------


@pytest.fixture(params=["memory", pytest.param("firestore", marks=pytest.mark.stack)])
def jobs(request):
    if request.param == "memory":
        from footnote.adapters.memory_jobs import MemoryJobStore

        return MemoryJobStore()
    request.getfixturevalue("stack")  # the emulators
    from footnote.adapters.firestore_jobs import FirestoreJobStore

    return FirestoreJobStore(request.getfixturevalue("firestore_client"))


def test_job_stores_implement_the_port(jobs) -> None:
    assert isinstance(jobs, JobStore)


def test_a_job_starts_at_no_cursor_and_get_or_create_keeps_it(jobs) -> None:
    job_id = f"job-{uuid.uuid4().hex[:8]}"
    assert jobs.get(job_id) is None
    created = jobs.get_or_create(job_id, "tenant", "t1")
    assert (created.scope, created.tenant_id, created.cursor, created.processed) == (
        "tenant",
        "t1",
        None,
        0,
    )
    assert jobs.advance(job_id, None, "n3", 3, False)
    again = jobs.get_or_create(job_id, "all", None)  # a replayed first message
    assert (again.scope, again.cursor, again.processed) == ("tenant", "n3", 3)
    assert jobs.get(job_id) == again


def test_advance_is_a_compare_and_set_that_stops_when_done(jobs) -> None:
    job_id = f"job-{uuid.uuid4().hex[:8]}"
    jobs.create(job_id, "all", None)
    assert jobs.advance(job_id, None, "a", 2, False)
    assert not jobs.advance(job_id, None, "b", 2, False)  # a duplicate of the first page
    assert jobs.advance(job_id, "a", None, 1, True)
    assert not jobs.advance(job_id, None, "x", 1, False)  # done: nothing moves it
    job = jobs.get(job_id)
    assert job is not None
    assert (job.cursor, job.previous_cursor, job.processed, job.done) == (None, "a", 3, True)


def _fence(store, tenant: str) -> None:
    """Begin the tenant's deletion as the deletion job's first step does."""
    from footnote.domain import deletion_job_id

    if hasattr(store, "fenced"):
        store.fenced.add(deletion_job_id(tenant))
    else:
        store.client.collection("accountDeletions").document(deletion_job_id(tenant)).set({})


def test_create_notes_writes_notes_with_their_chunks_at_once_and_leaves_existing_ones(
    store,
) -> None:
    tenant, base = _ids()
    there = store.create_note(note(f"{base}-a", "stored before", tenant))
    indexed = IndexState(f"{base}-b", tenant, IndexStatus.INDEXED, "hb", 2, "m")
    chunks = [chunk(f"{base}-b_000", "b zero", tenant), chunk(f"{base}-b_001", "b one", tenant)]
    v0 = store.tenant_version(tenant)
    done = store.create_notes(
        [
            NewNote(note(f"{base}-a", "the import's text", tenant)),
            NewNote(note(f"{base}-b", "b zero b one", tenant), chunks, indexed),
            NewNote(note(f"{base}-c", "c alone", tenant)),
        ]
    )
    assert (done.created, done.existing, done.removed) == (
        [f"{base}-b", f"{base}-c"],
        [f"{base}-a"],
        {},
    )
    assert store.get_note(tenant, f"{base}-a") == there  # left as it was
    assert store.index_state(f"{base}-b").status is IndexStatus.INDEXED
    assert store.index_state(f"{base}-b").content_hash == "hb"
    assert store.index_state(f"{base}-c").status is IndexStatus.PENDING
    got = {c.chunk_id: c.text for c in store.tenant_chunks(tenant)}
    assert got == {f"{base}-b_000": "b zero", f"{base}-b_001": "b one"}
    assert store.tenant_version(tenant) > v0  # readers of the corpus see the new chunks
    assert {c.note_id for c in store.chunks_of_notes(tenant, [f"{base}-b"])} == {f"{base}-b"}
    # The chunk ids are recorded as the indexer's are: a delete drops them.
    assert store.delete_note(tenant, f"{base}-b")
    assert store.tenant_chunks(tenant) == []
    assert store.remove_chunks(
        f"{base}-b", IndexState(f"{base}-b", tenant, IndexStatus.DELETED)
    ) == [
        f"{base}-b_000",
        f"{base}-b_001",
    ]


def test_create_notes_names_the_chunks_of_an_earlier_note_of_the_same_id(store) -> None:
    """A note deleted and imported again before the indexer removed the vectors of its
    old chunks: the new write removes those documents and names them."""
    tenant, nid = _ids()
    old = store.create_note(note(nid, "long old text", tenant))
    three = [chunk(f"{nid}_00{i}", f"old {i}", tenant) for i in range(3)]
    store.replace_chunks(old, three, IndexState(nid, tenant, IndexStatus.INDEXED, "h0", 3, "m"))
    assert store.delete_note(tenant, nid)
    one = [chunk(f"{nid}_000", "new", tenant)]
    state = IndexState(nid, tenant, IndexStatus.INDEXED, "h1", 1, "m")
    done = store.create_notes([NewNote(note(nid, "new", tenant), one, state)])
    assert done.created == [nid] and done.removed == {nid: [f"{nid}_001", f"{nid}_002"]}
    assert [c.text for c in store.tenant_chunks(tenant)] == ["new"]


def test_create_notes_writes_nothing_past_its_limit_or_once_the_deletion_began(store) -> None:
    tenant, base = _ids()
    many = [chunk(f"{base}-x_{i:03d}", "x", tenant) for i in range(ATOMIC_WRITES)]
    state = IndexState(f"{base}-x", tenant, IndexStatus.INDEXED, "h", len(many), "m")
    with pytest.raises(ValueError, match="at most"):
        store.create_notes(
            [
                NewNote(note(f"{base}-y", "y", tenant)),
                NewNote(note(f"{base}-x", "x", tenant), many, state),
            ]
        )
    assert store.existing_note_ids(tenant, [f"{base}-x", f"{base}-y"]) == set()
    _fence(store, tenant)
    with pytest.raises(Unauthenticated):
        store.create_notes([NewNote(note(f"{base}-z", "z", tenant))])
    assert store.existing_note_ids(tenant, [f"{base}-z"]) == set()


def test_existing_note_ids_are_the_tenants_own(store) -> None:
    tenant, base = _ids()
    store.create_note(note(f"{base}-1", "one", tenant))
    store.create_note(note(f"{base}-2", "two", "someone-else"))
    assert store.existing_note_ids(tenant, [f"{base}-1", f"{base}-2", f"{base}-3"]) == {f"{base}-1"}
    assert store.existing_note_ids(tenant, []) == set()
