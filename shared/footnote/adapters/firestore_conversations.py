"""Firestore ConversationStore: ``conversations`` and their ``messages``.

A ``conversations/{id}`` document is the conversation's summary — ``tenantId``,
``title`` (the first question), ``createdAt``, ``updatedAt`` (the latest turn) and
``messageCount`` — so a list reads one document per conversation; its turns are
``messages`` documents. The summary and the turns are written in one transaction.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from footnote.adapters.cursors import encode_cursor
from footnote.adapters.firestore_common import CONVERSATIONS, MESSAGES, FirestoreRepository
from footnote.domain import Conversation, ConversationPage, Turn, with_turns


class FirestoreConversationStore(FirestoreRepository):
    """ConversationStore over Firestore."""

    def append_turns(self, turns: Sequence[Turn]) -> None:
        groups: dict[str, list[Turn]] = {}
        for t in turns:
            groups.setdefault(t.conversation_id, []).append(t)
        conversations = self.client.collection(CONVERSATIONS)
        messages = self.client.collection(MESSAGES)

        # A transaction, not a batch: the summary depends on what is stored (a new
        # conversation takes its title and creation time from these turns; a
        # follow-up adds to the count). It reads only the summary documents.
        @self._fs.transactional
        def run(tx: Any) -> None:
            for tenant_id in sorted({t.tenant_id for t in turns}):
                self._check_fence(tx, tenant_id)  # nothing new once deletion began
            refs = {cid: conversations.document(cid) for cid in groups}
            before = {cid: self._summary(ref.get(transaction=tx)) for cid, ref in refs.items()}
            for cid, group in groups.items():
                tx.set(refs[cid], _summary_doc(with_turns(before[cid], group)))
            for t in turns:
                tx.set(messages.document(t.message_id), _message_doc(t))

        self._run_for_api(run, "this conversation")

    def list_conversations(
        self, tenant_id: str, limit: int, cursor: str | None
    ) -> ConversationPage:
        snaps, last = self._keyset(CONVERSATIONS, tenant_id, "updatedAt", limit, cursor)
        summaries = (self._summary(snap) for snap in snaps)
        page = [summary for summary in summaries if summary is not None]
        return ConversationPage(
            page,
            encode_cursor(last.get("updatedAt"), last.id, CONVERSATIONS)
            if last is not None
            else None,
        )

    def conversation_turns(self, tenant_id: str, conversation_id: str) -> list[Turn] | None:
        query = (
            self.client.collection(MESSAGES)
            .where(filter=self._where("conversationId", "==", conversation_id))
            .where(filter=self._where("tenantId", "==", tenant_id))
        )
        turns = [_turn_from(s.id, s.to_dict() or {}) for s in query.stream()]
        return sorted(turns, key=lambda t: (t.created_at, t.role != "user")) or None

    def turn(self, tenant_id: str, message_id: str) -> Turn | None:
        snap = self.client.collection(MESSAGES).document(message_id).get()
        if not snap.exists or snap.get("tenantId") != tenant_id:
            return None
        return _turn_from(snap.id, snap.to_dict() or {})

    def _summary(self, snap: Any) -> Conversation | None:
        """The stored summary; None for no document. A conversation stored before
        summaries were kept has only ``tenantId`` and ``updatedAt``: its summary is
        made from its turns (a plain query, never inside the transaction: the
        emulator would lock the whole collection), and the next turn stores it."""
        if not snap.exists:
            return None
        d = snap.to_dict() or {}
        if "messageCount" in d:
            return Conversation(
                snap.id, d["tenantId"], d["title"], d["createdAt"], d["updatedAt"],
                d["messageCount"],
            )  # fmt: skip
        turns = self.conversation_turns(d["tenantId"], snap.id)
        if not turns:
            return None  # nothing to show or to reopen
        return dataclasses.replace(with_turns(None, turns), updated_at=d["updatedAt"])


def _summary_doc(c: Conversation) -> dict[str, Any]:
    return {
        "tenantId": c.tenant_id,
        "title": c.title,
        "createdAt": c.created_at,
        "updatedAt": c.updated_at,
        "messageCount": c.message_count,
    }


def _message_doc(t: Turn) -> dict[str, Any]:
    return {
        "conversationId": t.conversation_id,
        "tenantId": t.tenant_id,
        "role": t.role,
        "text": t.text,
        "createdAt": t.created_at,
        "citations": [dict(c) for c in t.citations],
        "meta": dict(t.meta or {}),
    }


def _turn_from(message_id: str, d: Mapping[str, Any]) -> Turn:
    return Turn(
        message_id=message_id,
        conversation_id=d["conversationId"],
        tenant_id=d["tenantId"],
        role=d["role"],
        text=d["text"],
        created_at=d["createdAt"],
        citations=tuple(d.get("citations") or ()),
        meta=d.get("meta") or {},
    )
