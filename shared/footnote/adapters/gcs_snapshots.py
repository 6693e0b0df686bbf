"""Index snapshots in Cloud Storage (the storage emulator when STORAGE_EMULATOR_HOST
is set), in the uploads bucket beside the tenant's other files: one media download
per cold load (not the ranged, chunked reads of ``GcsBlobStore.open_read``), one
upload per write. An upload replaces the object atomically: a reader gets the old
snapshot or the new one, never a mix."""

from __future__ import annotations

import io
from typing import Any

from footnote.ports import snapshot_object

CONTENT_TYPE = "application/octet-stream"


class GcsIndexSnapshots:
    def __init__(self, project_id: str, bucket: str) -> None:
        from google.cloud import storage  # type: ignore[attr-defined]  # untyped namespace part

        self._bucket: Any = storage.Client(project=project_id).bucket(bucket)

    def read(self, tenant_id: str) -> bytearray | None:
        from google.api_core.exceptions import NotFound

        buffer = io.BytesIO()
        try:
            # raw: the object is stored as written (no decompressive transcoding)
            self._bucket.blob(snapshot_object(tenant_id)).download_to_file(
                buffer, raw_download=True
            )
        except NotFound:
            return None
        return bytearray(buffer.getbuffer())

    def write(self, tenant_id: str, data: bytes) -> None:
        blob = self._bucket.blob(snapshot_object(tenant_id))
        blob.upload_from_string(data, content_type=CONTENT_TYPE)

    def delete(self, tenant_id: str) -> None:
        from google.api_core.exceptions import NotFound

        try:
            self._bucket.blob(snapshot_object(tenant_id)).delete()
        except NotFound:
            return
