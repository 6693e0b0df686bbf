"""The note-edit rules every store applies (memory and Firestore alike)."""

from __future__ import annotations

from datetime import timedelta

from footnote.domain import MemoryType, NoteChanges, apply_changes, same_content
from tests.factories import NOW, note


def test_apply_changes_keeps_what_is_not_given_and_stamps_the_edit() -> None:
    before = note(text="old", tags=("a",), type=MemoryType.TASK, title="T")
    later = NOW + timedelta(minutes=5)
    after = apply_changes(before, NoteChanges(text="new"), later)
    assert (after.text, after.title, after.tags, after.type) == (
        "new",
        "T",
        ("a",),
        MemoryType.TASK,
    )
    assert after.updated_at == later and after.created_at == before.created_at
    assert apply_changes(before, NoteChanges(clear_type=True), later).type is None
    retyped = apply_changes(before, NoteChanges(type=MemoryType.DECISION), later)
    assert retyped.type is MemoryType.DECISION


def test_same_content_ignores_tags_and_times_but_not_text_title_or_type() -> None:
    base = note(text="x", title="T")
    later = NOW + timedelta(days=1)
    assert same_content(base, apply_changes(base, NoteChanges(tags=("t",)), later))
    assert not same_content(base, apply_changes(base, NoteChanges(text="y"), later))
    assert not same_content(base, apply_changes(base, NoteChanges(title="U"), later))
    assert not same_content(base, apply_changes(base, NoteChanges(type=MemoryType.TASK), later))
