"""The Cloud Storage adapter's folder listing, on the stack's storage server (the real
google-cloud-storage SDK over the GCS JSON API): the orphan sweep finds each user's
files through it (services/accounts.py ``_sweep_files``)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from footnote.adapters.gcs_blobs import GcsBlobStore

pytestmark = [pytest.mark.emulator]


def test_folders_lists_each_folder_once_without_its_objects(stack: Any) -> None:
    store = GcsBlobStore(stack.project, stack.bucket)
    # A prefix of its own: other tests' users are under users/.
    top = f"~folders-{uuid.uuid4().hex[:8]}/"
    names = [f"{top}alice/a.zip", f"{top}alice/uploads/s1/b.zip", f"{top}bob/c.md", f"{top}x.txt"]
    try:
        for name in names:
            with store.open_write(name, "application/octet-stream") as f:
                f.write(b"x")
        assert list(store.folders(top)) == ["alice", "bob"]  # x.txt is an object, not a folder
        assert list(store.folders(f"{top}alice/")) == ["uploads"]
        assert list(store.folders(f"{top}nobody/")) == []
    finally:
        store.delete_prefix(top)
    assert list(store.folders(top)) == []
