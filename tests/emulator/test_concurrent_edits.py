"""Ten writers on one note at once, through the running stack (Firestore emulator,
indexer reacting to each write): every request is answered 200 or 412, none is
lost, and the note ends as one of the writes. (Latency is measured, not asserted:
benchmarks/concurrent_edits.py.)"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.emulator

WRITERS = 10


def _write_at_once(stack, user, note_id: str, headers: dict[str, str]) -> list[tuple[int, str]]:
    barrier = threading.Barrier(WRITERS)
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def writer(i: int) -> None:
        text = f"writer {i} {uuid.uuid4().hex[:6]}"
        barrier.wait()
        response = requests.patch(
            f"{stack.api_url}/notes/{note_id}",
            json={"text": text},
            headers={"Authorization": f"Bearer {user.token}", **headers},
            timeout=120,
        )
        with lock:
            answers.append((response.status_code, text))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def _note(user, note_id: str) -> dict[str, Any]:
    response = user.call("GET", f"/notes/{note_id}")
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def test_ten_blind_writers_all_succeed_and_the_last_write_wins(stack, new_user) -> None:
    user = new_user()
    note_id = user.add_note("start")
    answers = _write_at_once(stack, user, note_id, {})
    assert sorted(status for status, _ in answers) == [200] * WRITERS, answers
    final = _note(user, note_id)
    assert final["text"] in {text for _, text in answers}
    # Every write was applied (none lost): the version moved once per write.
    assert final["etag"] == f'"{1 + WRITERS}"'


def test_ten_writers_of_one_version_one_wins_the_rest_get_412(stack, new_user) -> None:
    user = new_user()
    note_id = user.add_note("start")
    etag = _note(user, note_id)["etag"]
    answers = _write_at_once(stack, user, note_id, {"If-Match": etag})
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [412] * (WRITERS - 1), answers
    final = _note(user, note_id)
    winner = next(text for status, text in answers if status == 200)
    assert final["text"] == winner and final["etag"] == '"2"'
