"""Files in Cloud Storage (the Firebase Storage emulator when STORAGE_EMULATOR_HOST is
set): the production ``BlobStore``. Reads and writes are streamed through the
client library's file objects (ranged reads, resumable uploads), so no object is
ever held whole in an instance's memory.

Clients upload big archives straight to the bucket through a resumable upload
session the API creates for one object (``upload_session``): the session URL is the
only capability handed out, bound to that name and size, and needs no key to sign
with (a signed URL would need the service account's signBlob)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, cast


class GcsBlobStore:
    def __init__(self, project_id: str, bucket: str) -> None:
        from google.cloud import storage  # type: ignore[attr-defined]  # untyped namespace part

        self._bucket: Any = storage.Client(project=project_id).bucket(bucket)

    def open_read(self, name: str) -> BinaryIO:
        from google.api_core.exceptions import NotFound

        blob = self._bucket.blob(name)
        try:
            blob.reload()  # one metadata read: a missing object fails here, not mid-parse
        except NotFound:
            raise FileNotFoundError(name) from None
        return cast(BinaryIO, blob.open("rb", chunk_size=4 * 1024 * 1024))

    @contextmanager
    def open_write(self, name: str, content_type: str) -> Iterator[BinaryIO]:
        import tempfile

        # Spooled: small files stay in memory, big ones go to a temporary file, and the
        # object is uploaded only once the block ends without error (never a half file).
        with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024) as spool:
            yield cast(BinaryIO, spool)
            spool.seek(0)
            self._bucket.blob(name).upload_from_file(spool, content_type=content_type)

    def size(self, name: str) -> int | None:
        blob = self._bucket.get_blob(name)
        return None if blob is None else int(blob.size)

    def names(self, prefix: str) -> Iterator[str]:
        for blob in self._bucket.client.list_blobs(self._bucket, prefix=prefix):
            yield str(blob.name)

    def folders(self, prefix: str) -> Iterator[str]:
        # A delimited listing returns each folder once, however many objects it holds.
        pages = self._bucket.client.list_blobs(self._bucket, prefix=prefix, delimiter="/")
        for page in pages.pages:
            for folder in sorted(page.prefixes):
                yield str(folder)[len(prefix) :].rstrip("/")

    def upload_session(
        self, name: str, content_type: str, size: int, origin: str | None
    ) -> str | None:
        # The size is declared (X-Upload-Content-Length): Cloud Storage refuses any
        # other. The origin makes Cloud Storage answer the browser's CORS requests.
        return str(
            self._bucket.blob(name).create_resumable_upload_session(
                content_type=content_type, size=size, origin=origin
            )
        )

    def cancel_upload(self, url: str) -> None:
        import requests

        # The session URL is its own permission (no token), as for the client's PUT.
        response = requests.delete(url, timeout=30)
        # 499: cancelled; 404/410: finished or expired already. Anything else (a 5xx)
        # raises, and the deletion's redelivered message tries again.
        if response.status_code not in (200, 204, 404, 410, 499):
            response.raise_for_status()
            raise OSError(f"cancelling an upload session answered {response.status_code}")

    def delete_prefix(self, prefix: str) -> int:
        gone = 0
        for name in list(self.names(prefix)):
            self._bucket.blob(name).delete()
            gone += 1
        return gone
