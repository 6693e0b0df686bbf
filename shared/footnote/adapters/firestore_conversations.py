"""Firestore ConversationStore: ``conversations`` and their ``messages``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footnote.adapters.firestore_common import CONVERSATIONS, MESSAGES, FirestoreRepository
from footnote.domain import Turn


class FirestoreConversationStore(FirestoreRepository):
    """ConversationStore over Firestore."""

    def append_turns(self, turns: Sequence[Turn]) -> None:
        batch = self.client.batch()
        for t in turns:
            batch.set(
                self.client.collection(CONVERSATIONS).document(t.conversation_id),
                {"tenantId": t.tenant_id, "updatedAt": t.created_at},
                merge=True,
            )
            batch.set(
                self.client.collection(MESSAGES).document(t.message_id),
                {
                    "conversationId": t.conversation_id,
                    "tenantId": t.tenant_id,
                    "role": t.role,
                    "text": t.text,
                    "createdAt": t.created_at,
                    "citations": [dict(c) for c in t.citations],
                    "meta": dict(t.meta or {}),
                },
            )
        batch.commit()

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
