"""Index snapshots kept as files in a ``BlobStore``: the offline adapter (over the
in-memory blob store) and the base of the Cloud Storage one."""

from __future__ import annotations

from footnote.ports import BlobStore, snapshot_object

CONTENT_TYPE = "application/octet-stream"


class BlobIndexSnapshots:
    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    def read(self, tenant_id: str) -> bytearray | None:
        try:
            stream = self._blobs.open_read(snapshot_object(tenant_id))
        except FileNotFoundError:
            return None
        with stream:
            return bytearray(stream.read())

    def write(self, tenant_id: str, data: bytes) -> None:
        with self._blobs.open_write(snapshot_object(tenant_id), CONTENT_TYPE) as out:
            out.write(data)

    def delete(self, tenant_id: str) -> None:
        self._blobs.delete_prefix(snapshot_object(tenant_id))
