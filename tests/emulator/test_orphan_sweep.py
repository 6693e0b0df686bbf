"""The orphan sweep's walk over every tenant, on the Firestore emulator: each tenant
that holds any document is found once, in id order, from a field or a document id,
page by page. (The sweep itself, Auth lookups and the deletions it starts, is proven
in process: tests/unit/test_account_deletion.py. It is not run on the shared stack,
where other tests' made-up tenants have no Auth user and would be deleted.)"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from footnote.adapters.firestore_accounts import FirestoreTenantData

pytestmark = [pytest.mark.emulator]


def test_every_tenant_is_walked_once_in_order(direct_firestore_client: Any) -> None:
    # A project no function watches: the notes written here start no indexing.
    # "~" sorts after every letter and digit of a Firebase uid: no other test's
    # tenant falls between these.
    prefix = f"~sweep-{uuid.uuid4().hex[:8]}-"
    a, b, c, d = (prefix + x for x in "abcd")
    docs = [
        direct_firestore_client.collection("notes").document(f"{prefix}n1"),
        direct_firestore_client.collection("notes").document(f"{prefix}n2"),
        direct_firestore_client.collection("conversations").document(f"{prefix}c1"),
        direct_firestore_client.collection("noteChunks").document(f"{prefix}k1"),
        direct_firestore_client.collection("tenants").document(d),
    ]
    try:
        docs[0].set({"tenantId": a, "text": "x"})
        docs[1].set({"tenantId": a, "text": "y"})  # a second document of the same tenant
        docs[2].set({"tenantId": b, "title": "q"})  # only a conversation
        docs[3].set({"tenantId": c, "text": "z"})  # only a chunk
        docs[4].set({"version": 1})  # only the version counter, by document id
        data = FirestoreTenantData(direct_firestore_client)
        assert data.tenants_after(prefix, 10) == [a, b, c, d]
        # paged: each page starts after the last id of the one before
        assert data.tenants_after(prefix, 2) == [a, b]
        assert data.tenants_after(b, 2) == [c, d]
        assert data.tenants_after(d, 2) == []
    finally:
        for doc in docs:
            doc.delete()
