"""Keep the local stack's data across restarts of ``footnote dev`` (``make dev``).

The emulators hold everything in memory. A data folder (``.footnote-data/`` in the
repository, git-ignored) keeps the last snapshot of each:

- ``firestore/<n>/`` - an export through the Firestore emulator's
  ``POST /emulator/v1/projects/{p}:export`` endpoint, imported at the next start
  with ``--import-data``. (The emulator's own ``--export-on-exit`` was tried: on
  SIGTERM it exported nothing, or failed, so it is not relied on.)
- ``storage/`` - the Cloud Storage server's objects (uploads, exports), written
  there by the server itself (gcp-storage-emulator's on-disk store) as each is
  stored: nothing to snapshot, and a crash loses nothing that was acknowledged.
- ``auth/<n>/`` - an export of the Auth emulator's accounts through its Emulator
  Hub (``POST /_admin/export``), imported with firebase-tools' ``--import``. The
  Auth emulator also runs with ``--export-on-exit`` into ``auth/exit/``, which
  firebase-tools writes when it is stopped with a signal, also when ``footnote dev``
  itself was killed (see :mod:`footnote.dev.reaper`).

Snapshots are taken every ``interval`` seconds while the stack runs and once more
before it stops, so a crash loses at most the last interval. Each is written to a
``.partial`` folder and renamed when complete: a crash mid-export leaves the
previous snapshot intact. Pub/Sub is not kept: its topics and subscriptions are
created at every start, and a re-index request that was in flight is redone by the
sweep ``footnote dev`` publishes after a restart.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import requests

from footnote.dev.prerequisites import ROOT, PrerequisiteMissing
from footnote.dev.timeouts import scaled

DEFAULT_DATA_DIR = ROOT / ".footnote-data"
COMPLETE = "COMPLETE"  # written last into a snapshot folder


class DataDirBusy(PrerequisiteMissing):
    """Another running stack keeps its data in the same folder."""


class DataDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._held: IO[str] | None = None

    @property
    def firestore(self) -> Path:
        return self.root / "firestore"

    @property
    def auth(self) -> Path:
        return self.root / "auth"

    @property
    def auth_on_exit(self) -> Path:
        return self.auth / "exit"

    @property
    def storage(self) -> Path:
        """The storage server's own files: it writes each object to disk as it is
        stored, so there is no snapshot to take and nothing to import."""
        return self.root / "storage"

    def prune_storage_folders(self) -> int:
        """Remove the empty folders the storage server leaves on disk when it deletes
        objects (a deleted account's ``users/{uid}/``): Cloud Storage has no folders,
        and a deleted user's id should not stay behind as a directory name. Only
        below each bucket's own folder, and only while the server is not running (it
        creates a folder before writing into it). How many were removed."""
        root = self.storage / ".cloudstorage"
        if not root.is_dir():
            return 0
        removed = 0
        for bucket in (p for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")):
            for folder in sorted(
                (p for p in bucket.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)
            ):
                if not any(folder.iterdir()):
                    folder.rmdir()
                    removed += 1
        return removed

    # -- ownership -------------------------------------------------------------
    def acquire(self) -> None:
        """One stack per data folder: two would overwrite each other's snapshots."""
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / ".lock", "a+")  # noqa: SIM115 (held while running)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DataDirBusy(
                f"the data folder {self.root} is in use by {holder} (another 'make dev'?). "
                "Stop it, or give this one another folder with --data-dir."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._held = handle

    def release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.close()  # closing drops the flock

    def reset(self) -> None:
        """Forget every note, account and conversation of the local stack (refused
        while a running stack uses the folder: it would write it back)."""
        if not self.root.exists():
            return
        self.acquire()
        try:
            shutil.rmtree(self.root)
        finally:
            self.release()

    # -- what to import ------------------------------------------------------------
    def firestore_snapshot(self) -> Path | None:
        """The newest complete Firestore export's metadata file (``--import-data``)."""
        folder = _newest_complete(self.firestore)
        if folder is None:
            return None
        return next(folder.glob("*/*.overall_export_metadata"), None)

    def auth_snapshot(self) -> Path | None:
        """The newest Auth export folder (``--import``): the one written on exit when it
        is newer than the last periodic snapshot."""
        candidates = [p for p in (_newest_complete(self.auth), self.auth_on_exit) if p]
        candidates = [p for p in candidates if (p / "firebase-export-metadata.json").is_file()]
        if not candidates:
            return None
        return max(candidates, key=lambda p: (p / "firebase-export-metadata.json").stat().st_mtime)

    def has_data(self) -> bool:
        return self.firestore_snapshot() is not None or self.auth_snapshot() is not None

    # -- taking snapshots ------------------------------------------------------------
    def save(self, firestore_url: str, hub_url: str | None, project: str) -> None:
        """Export Firestore (and Auth, through its hub) into new snapshots, then drop the
        older ones. Raises on a failed export, leaving the previous snapshot in place."""
        with self._lock:
            name = str(time.time_ns())
            self._save_one(
                self.firestore,
                name,
                lambda target: _post(
                    f"{firestore_url}/emulator/v1/projects/{project}:export",
                    {
                        "database": f"projects/{project}/databases/(default)",
                        "export_directory": str(target),
                    },
                ),
            )
            if hub_url is not None:
                self._save_one(
                    self.auth,
                    name,
                    lambda target: _post(
                        f"{hub_url}/_admin/export",
                        {"path": str(target), "initiatedBy": "footnote dev"},
                    ),
                )

    def _save_one(self, parent: Path, name: str, export: Callable[[Path], None]) -> None:
        parent.mkdir(parents=True, exist_ok=True)
        partial = parent / f"{name}.partial"
        partial.mkdir()
        try:
            export(partial)
            (partial / COMPLETE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S%z\n"))
            final = parent / name
            partial.rename(final)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        for old in parent.iterdir():
            if old != final and old.is_dir() and old.name != self.auth_on_exit.name:
                shutil.rmtree(old, ignore_errors=True)


def _post(url: str, body: dict[str, str]) -> None:
    response = requests.post(url, json=body, timeout=scaled(60))
    response.raise_for_status()


def _newest_complete(parent: Path) -> Path | None:
    if not parent.is_dir():
        return None
    done = [
        p for p in parent.iterdir() if p.name.isdigit() and p.is_dir() and (p / COMPLETE).is_file()
    ]
    return max(done, key=lambda p: int(p.name), default=None)


class Saver:
    """Snapshots every ``interval`` seconds on a background thread, until stopped."""

    def __init__(self, save: Callable[[], None], interval: float) -> None:
        self._save = save
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="footnote-snapshots", daemon=True)
        self.last_error: str | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=scaled(90))

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._save()
                self.last_error = None
            except OSError as exc:
                # The emulator's export or the disk failed (requests' errors are
                # OSErrors): the caller reports it, and the next save tries again. A
                # bug ends the thread with its traceback (threading.excepthook).
                self.last_error = f"{type(exc).__name__}: {exc}"
