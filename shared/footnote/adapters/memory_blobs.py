"""Files in process memory: the offline twin of the Cloud Storage adapter."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO


class MemoryBlobStore:
    def __init__(self) -> None:
        self._objects: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def open_read(self, name: str) -> BinaryIO:
        with self._lock:
            if name not in self._objects:
                raise FileNotFoundError(name)
            return io.BytesIO(self._objects[name])

    @contextmanager
    def open_write(self, name: str, content_type: str) -> Iterator[BinaryIO]:
        buffer = io.BytesIO()
        yield buffer
        with self._lock:
            self._objects[name] = buffer.getvalue()

    def size(self, name: str) -> int | None:
        with self._lock:
            data = self._objects.get(name)
        return None if data is None else len(data)

    def names(self, prefix: str) -> Iterator[str]:
        with self._lock:
            found = sorted(n for n in self._objects if n.startswith(prefix))
        yield from found

    def folders(self, prefix: str) -> Iterator[str]:
        with self._lock:
            found = {
                n[len(prefix) :].split("/", 1)[0] for n in self._objects if n.startswith(prefix)
            }
        yield from sorted(f for f in found if f)

    def upload_session(
        self, name: str, content_type: str, size: int, origin: str | None
    ) -> str | None:
        return None  # in process: no URL a client could reach

    def cancel_upload(self, url: str) -> None:
        return None  # it hands out no sessions

    def delete_prefix(self, prefix: str) -> int:
        with self._lock:
            gone = [n for n in self._objects if n.startswith(prefix)]
            for name in gone:
                del self._objects[name]
        return len(gone)
