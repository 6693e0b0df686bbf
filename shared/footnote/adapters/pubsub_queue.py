"""Re-index requests published to Pub/Sub (the emulator locally)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any


class PubSubQueue:
    def __init__(self, project_id: str, topic: str) -> None:
        from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # no stubs

        self._publisher = pubsub_v1.PublisherClient()
        self._topic = self._publisher.topic_path(project_id, topic)

    def publish(self, message: Mapping[str, Any]) -> None:
        data = json.dumps(dict(message), separators=(",", ":")).encode()
        self._publisher.publish(self._topic, data).result(timeout=30)


class InlineQueue:
    """Runs each request in-process: for the evaluation harness and unit tests."""

    def __init__(self) -> None:
        self.handler: Callable[[Mapping[str, Any]], None] | None = None
        self.published: list[dict[str, Any]] = []

    def publish(self, message: Mapping[str, Any]) -> None:
        self.published.append(dict(message))
        if self.handler is not None:
            self.handler(message)
