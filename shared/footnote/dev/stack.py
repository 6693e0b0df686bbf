"""Start and stop the whole local stack: Firestore, Pub/Sub and Auth emulators, a
Cloud Storage server, the functions host, the Firestore trigger and the Pub/Sub push
subscription.

Cloud Storage is gcp-storage-emulator (PyPI), a server of the GCS JSON API that the
google-cloud-storage SDK reaches through ``STORAGE_EMULATOR_HOST``. Not the Firebase
Storage emulator: firebase-tools starts that one only with a rules-runtime jar it
downloads from storage.googleapis.com, which no registry this project installs from
carries, so it cannot start offline. storage.rules is therefore not evaluated locally.

Used by ``footnote dev`` (``make dev``) and by the emulator tests. The tools and
the ports it needs are checked in :mod:`footnote.dev.prerequisites`; the data kept
across restarts is in :mod:`footnote.dev.persistence`; :mod:`footnote.dev.reaper`
stops the processes if the one that started them dies; every wait is scaled to the
machine's load by :mod:`footnote.dev.timeouts`.

Why this module is over 500 lines: starting, saving and stopping are one
lifecycle over the same child processes (each emulator's process group, its
readiness probe, its log file), and the shutdown path must reach every one of
them even when stdout is gone; split apart, each half would need the other's
process table.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from footnote.dev.host import INDEXER_TRIGGER_ID
from footnote.dev.persistence import DataDir, Saver
from footnote.dev.prerequisites import (
    ROOT,
    Ports,
    PortTaken,
    PrerequisiteMissing,
    check_prerequisites,
    port_free,
    port_holder,
)
from footnote.dev.reaper import Reaper, group_running, signal_group
from footnote.dev.timeouts import scaled

PROJECT = "demo-footnote"
DEAD_LETTER_TOPIC = "footnote-reindex-dead-letter"
PUSH_SUBSCRIPTION = "footnote-reindex-push"
DEAD_LETTER_SUBSCRIPTION = "footnote-reindex-dead-letter-sub"
# Account jobs (deletion): their own topic, pushed to the same worker (infra/pubsub.tf).
ACCOUNTS_TOPIC = "footnote-accounts"
ACCOUNTS_DEAD_LETTER_TOPIC = "footnote-accounts-dead-letter"
ACCOUNTS_PUSH_SUBSCRIPTION = "footnote-accounts-push"
ACCOUNTS_DEAD_LETTER_SUBSCRIPTION = "footnote-accounts-dead-letter-sub"
# Locally the deletion waits 2 s after its fence for requests that began before it
# (production: ACCOUNT_DELETION_GRACE_S, the longest function timeout).
LOCAL_DELETION_GRACE_S = "2"


def uploads_bucket(project: str) -> str:
    """The uploads bucket's name, as infra/storage.tf names it."""
    return f"{project}-footnote-uploads"


_LOG_PREFIX = "footnote-logs-"


def _temporary_log_dir() -> Path:
    """A new folder's name (made when the stack starts, not when it is described)."""
    return Path(tempfile.gettempdir()) / f"{_LOG_PREFIX}{uuid.uuid4().hex[:12]}"


@dataclass
class Stack:
    ports: Ports = field(default_factory=Ports)
    project: str = PROJECT
    # The processes' logs. By default a folder of its own in the system's temporary
    # folder, made at start and removed by stop() unless keep_logs is set (a failure
    # to look into); a folder given here is the caller's and stays.
    log_dir: Path = field(default_factory=lambda: _temporary_log_dir())
    keep_logs: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)
    max_delivery_attempts: int = 5
    # Where the data lives across restarts (footnote.dev.persistence); None: in memory.
    data: DataDir | None = None
    snapshot_interval: float = 30
    _procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _tools: dict[str, str] = field(default_factory=dict)
    _reaper: Reaper = field(default_factory=Reaper)
    _saver: Saver | None = None

    def __post_init__(self) -> None:
        self._temporary_logs = self.log_dir.name.startswith(_LOG_PREFIX) and (
            self.log_dir.parent == Path(tempfile.gettempdir())
        )

    # -- environment -----------------------------------------------------------
    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.functions}"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.web}"

    @property
    def firestore_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.firestore}"

    @property
    def hub_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.hub}"

    @property
    def storage_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.storage}"

    @property
    def bucket(self) -> str:
        return uploads_bucket(self.project)

    def client_env(self) -> dict[str, str]:
        """Variables that point Google SDKs at the emulators."""
        return {
            "FIRESTORE_EMULATOR_HOST": f"127.0.0.1:{self.ports.firestore}",
            "PUBSUB_EMULATOR_HOST": f"127.0.0.1:{self.ports.pubsub}",
            "FIREBASE_AUTH_EMULATOR_HOST": f"127.0.0.1:{self.ports.auth}",
            "STORAGE_EMULATOR_HOST": self.storage_url,
            "GOOGLE_CLOUD_PROJECT": self.project,
            "GCLOUD_PROJECT": self.project,
        }

    # -- lifecycle -------------------------------------------------------------
    def start(self, with_functions: bool = True, with_web: bool = False) -> None:
        """Start the emulators (with the data folder's snapshot, if any), the functions
        host and, with ``with_web``, the web client; every port is checked first."""
        tools = check_prerequisites()
        self.check_ports(with_functions, with_web)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.data is not None:
            self.data.acquire()
        try:
            self._start_emulators(tools)
            self.configure_pubsub()
            # The functions host loads its model while the Auth emulator starts (each
            # took 20-30 s on a loaded machine, one after the other): it needs Firestore
            # and Cloud Storage to start, the Auth emulator only for requests.
            if with_functions:
                self._spawn_functions()
            self._start_auth()
            if with_functions:
                self._wait_functions()
                self.register_trigger()
            if with_web:
                self.start_web()
            if self.data is not None:
                self._saver = Saver(self.save, self.snapshot_interval)
                self._saver.start()
        except BaseException:
            self.stop()
            raise

    def check_ports(self, with_functions: bool = True, with_web: bool = False) -> None:
        """Fail with one clear message before starting anything: otherwise an emulator
        dies on bind, or worse, our health checks reach a stale stack and pass."""
        p = self.ports
        wanted = [
            ("Firestore emulator", p.firestore, "--firestore-port"),
            ("Pub/Sub emulator", p.pubsub, "--pubsub-port"),
            ("Auth emulator", p.auth, "--auth-port"),
            ("Auth emulator's hub", p.hub, "--hub-port"),
            ("Cloud Storage server", p.storage, "--storage-port"),
        ]
        if with_functions:
            wanted.append(("functions host (API)", p.functions, "--port"))
        if with_web:
            wanted.append(("Hosting emulator", p.hosting, "--hosting-port"))
            wanted.append(("web client", p.web, "--web-port"))
        ports = [port for _, port, _ in wanted]
        if len(set(ports)) != len(ports):
            raise PortTaken(f"the same port is given twice: {sorted(ports)}")
        taken = [(what, port, flag) for what, port, flag in wanted if not port_free(port)]
        if taken:
            listed = "\n".join(
                f"  {port} for the {what} ({flag}): held by {port_holder(port) or 'another process'}"
                for what, port, flag in taken
            )
            raise PortTaken(
                f"port already in use:\n{listed}\nIs another 'make dev' (or its emulators) "
                "still running? Stop it, or choose other ports with the flags shown."
            )

    def _start_emulators(self, tools: dict[str, str]) -> None:
        """Firestore, Pub/Sub and Cloud Storage, started together and waited for."""
        p = self.ports
        self._tools = tools
        self._spawn_firestore()
        self._spawn(
            "pubsub",
            [tools["pubsub"], "--host=127.0.0.1", f"--port={p.pubsub}"],
            env={"PUBSUB_PROJECT_ID": self.project},
        )
        self._start_storage()
        _wait_http(f"{self.firestore_url}/", "Firestore emulator", self, "firestore")
        _wait_http(f"http://127.0.0.1:{p.pubsub}/", "Pub/Sub emulator", self, "pubsub")
        _wait_http(f"{self.storage_url}/", "Cloud Storage server", self, "storage")
        self._create_bucket()

    def _start_auth(self) -> None:
        p = self.ports
        tools = self._tools
        config = self.log_dir / "firebase.json"
        config.write_text(
            json.dumps(
                {
                    "emulators": {
                        "auth": {"host": "127.0.0.1", "port": p.auth},
                        # A fixed hub port: exports of the accounts go through it.
                        "hub": {"host": "127.0.0.1", "port": p.hub},
                        "ui": {"enabled": False},
                        "singleProjectMode": True,
                    },
                }
            )
        )
        argv = [
            tools["firebase"],
            "emulators:start",
            "--only",
            "auth",
            "--project",
            self.project,
            "--config",
            str(config),
        ]
        if self.data is not None:
            snapshot = self.data.auth_snapshot()
            if snapshot is not None:
                argv.append(f"--import={snapshot}")
            # Written when the emulator is stopped by a signal, also by the reaper
            # after a crash of this process; a normal stop has saved just before.
            argv.append(f"--export-on-exit={self.data.auth_on_exit}")
        self._start_firebase("auth", argv, f"http://127.0.0.1:{p.auth}/", "Auth emulator")

    def _start_storage(self) -> None:
        """The Cloud Storage server: its objects on disk in the data folder (they
        survive restarts as they are, like Firestore's snapshots), else in memory."""
        argv = [
            sys.executable,
            "-m",
            "footnote.dev.storage_server",  # gcp-storage-emulator, cancelling sessions
            "start",
            "--host=127.0.0.1",
            f"--port={self.ports.storage}",
        ]
        env: dict[str, str] = {}
        if self.data is None:
            argv.append("--in-memory")
        else:
            self.data.storage.mkdir(parents=True, exist_ok=True)
            self.data.prune_storage_folders()  # the server is not running yet
            env["STORAGE_BASE"] = str(self.data.storage)  # its files: STORAGE_BASE/.cloudstorage
        self._spawn("storage", argv, env=env, cwd=self.log_dir)

    def _create_bucket(self) -> None:
        """The uploads bucket, as infra/storage.tf declares it: no soft delete, so an
        object deleted (by account deletion) is gone, not kept restorable for 7 days
        (the server's default, and Cloud Storage's)."""
        base = f"{self.storage_url}/storage/v1/b"
        response = requests.post(
            base, params={"project": self.project}, json={"name": self.bucket}, timeout=scaled(10)
        )
        if response.status_code not in (200, 409):
            response.raise_for_status()
        requests.patch(
            f"{base}/{self.bucket}",
            json={"softDeletePolicy": {"retentionDurationSeconds": 0}},
            timeout=scaled(10),
        ).raise_for_status()

    def _start_firebase(self, name: str, argv: list[str], url: str, what: str) -> None:
        """Start a firebase-tools emulator and wait until it says it is ready.

        firebase-tools chooses its hub and logging ports by probing for a free one and
        binds it later; another firebase-tools starting at that moment (another stack,
        a test run) can take the port in between, and this one then dies with "An
        unexpected error has occurred", sometimes just after it answered HTTP. Such a
        start is retried, twice."""
        log = self.log_dir / f"{name}.log"
        for attempt in range(3):
            offset = log.stat().st_size if log.exists() else 0
            # firebase-tools finds "the running emulators" of a project (for
            # --export-on-exit) through a locator file in the temp folder, named after
            # the project only: another stack of demo-footnote on this machine took it
            # over and the export on exit failed. A temp folder of its own per process.
            tmp = self.log_dir / f"{name}-tmp"
            tmp.mkdir(exist_ok=True)
            self._spawn(name, argv, env={"TMPDIR": str(tmp)}, cwd=self.log_dir)
            try:
                _wait_http(url, what, self, name, timeout=90)
                deadline = time.monotonic() + scaled(60)
                while self.alive(name) and time.monotonic() < deadline:
                    with open(log, "rb") as f:
                        f.seek(offset)
                        text = f.read().decode(errors="replace")
                    if "unexpected error" in text:
                        break
                    if "All emulators ready" in text:
                        return
                    time.sleep(0.2)
                if attempt == 2:
                    raise RuntimeError(f"{what} did not start:\n{self.log_tail(name)}")
            except RuntimeError:
                if attempt == 2:
                    raise
            self._kill(name)

    def start_functions(self) -> None:
        self._spawn_functions()
        self._wait_functions()

    def _spawn_functions(self) -> None:
        env = {
            **self.client_env(),
            "ACCOUNT_DELETION_GRACE_S": LOCAL_DELETION_GRACE_S,
            # Uploads and exports in the Cloud Storage server, through the same SDK
            # code path as production (footnote.adapters.gcs_blobs).
            "BLOB_STORE": "gcs",
            "BLOB_BUCKET": self.bucket,
            **self.extra_env,
        }
        self._spawn(
            "functions",
            [
                sys.executable,
                "-m",
                "footnote.dev.host",
                f"--port={self.ports.functions}",
                f"--project={self.project}",
            ],
            env=env,
        )

    def _wait_functions(self) -> None:
        # The host loads the embedding model and the tenants' indexes before it serves.
        _wait_http(f"{self.api_url}/healthz", "functions host", self, "functions", timeout=180)

    def stop_functions(self) -> None:
        self._kill("functions")

    def start_web(self) -> None:
        """Serve the built web client (web/dist) through the Hosting emulator, behind
        the local origin that also forwards /api/** to the functions host and the Auth
        endpoints to the Auth emulator (see footnote.dev.webproxy)."""
        dist = ROOT / "web" / "dist"
        if not (dist / "index.html").is_file():
            raise PrerequisiteMissing(
                "The web client is not built: run 'make setup' (or: npm --prefix web ci && npm --prefix web run build)."
            )
        tools = self._tools or check_prerequisites()
        hosting = json.loads((ROOT / "firebase.json").read_text())["hosting"]
        # The /api/** rewrite names a deployed function or Cloud Run service, which the
        # Hosting emulator would call in the cloud; the local origin forwards /api itself.
        rewrites = [
            r for r in hosting.get("rewrites", []) if "function" not in r and "run" not in r
        ]
        config = self.log_dir / "firebase.hosting.json"
        config.write_text(
            json.dumps(
                {
                    "emulators": {
                        "hosting": {"host": "127.0.0.1", "port": self.ports.hosting},
                        "ui": {"enabled": False},
                        "singleProjectMode": True,
                    },
                    "hosting": {
                        **{k: v for k, v in hosting.items() if k != "predeploy"},
                        # firebase-tools resolves "public" against the config's folder
                        # and does not serve an absolute path.
                        "public": os.path.relpath(dist, self.log_dir),
                        "rewrites": rewrites,
                    },
                }
            )
        )
        self._start_firebase(
            "hosting",
            [
                tools["firebase"],
                "emulators:start",
                "--only",
                "hosting",
                "--project",
                self.project,
                "--config",
                str(config),
            ],
            f"http://127.0.0.1:{self.ports.hosting}/",
            "Hosting emulator",
        )
        self._spawn(
            "web",
            [
                sys.executable,
                "-m",
                "footnote.dev.webproxy",
                f"--port={self.ports.web}",
                f"--api={self.api_url}",
                f"--hosting=http://127.0.0.1:{self.ports.hosting}",
                f"--auth=http://127.0.0.1:{self.ports.auth}",
                f"--storage={self.storage_url}",
                f"--project={self.project}",
            ],
        )
        _wait_http(f"{self.web_url}/", "web origin", self, "web")

    def register_trigger(self) -> None:
        url = (
            f"http://127.0.0.1:{self.ports.firestore}/emulator/v1/projects/{self.project}"
            f"/eventarcTrigger?eventarcTriggerId={INDEXER_TRIGGER_ID}"
        )
        body: dict[str, Any] = {
            "eventType": "google.cloud.firestore.document.v1.written",
            "database": "(default)",
            "namespace": "(default)",
            "document": {"value": "notes/{noteId}", "matchType": "PATH_PATTERN"},
        }
        # Right after a (re)start the emulator's JVM is cold: on a loaded machine the
        # first requests took over 10 s, so retry within one scaled deadline.
        deadline = time.monotonic() + scaled(60)
        while True:
            try:
                response = requests.post(url, json=body, timeout=scaled(10))
                response.raise_for_status()
                return
            except requests.RequestException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def publish(self, topic: str, payload: dict[str, Any]) -> None:
        """Publish one JSON message (e.g. a re-index request) through the Pub/Sub
        emulator's REST API."""
        data = base64.b64encode(json.dumps(payload).encode()).decode()
        requests.post(
            f"http://127.0.0.1:{self.ports.pubsub}/v1/projects/{self.project}/topics/{topic}:publish",
            json={"messages": [{"data": data}]},
            timeout=scaled(30),
        ).raise_for_status()

    def configure_pubsub(self) -> None:
        base = f"http://127.0.0.1:{self.ports.pubsub}/v1/projects/{self.project}"
        topic = os.environ.get(
            "REINDEX_TOPIC", self.extra_env.get("REINDEX_TOPIC", "footnote-reindex")
        )
        for name in (topic, DEAD_LETTER_TOPIC):
            requests.put(f"{base}/topics/{name}", json={}, timeout=scaled(10))
        requests.put(
            f"{base}/subscriptions/{DEAD_LETTER_SUBSCRIPTION}",
            json={"topic": f"projects/{self.project}/topics/{DEAD_LETTER_TOPIC}"},
            timeout=scaled(10),
        )
        push: dict[str, Any] = {
            "topic": f"projects/{self.project}/topics/{topic}",
            "pushConfig": {"pushEndpoint": f"{self.api_url}/reindexer/"},
            "ackDeadlineSeconds": 60,
            "retryPolicy": {"minimumBackoff": "1s", "maximumBackoff": "5s"},
            "deadLetterPolicy": {
                "deadLetterTopic": f"projects/{self.project}/topics/{DEAD_LETTER_TOPIC}",
                "maxDeliveryAttempts": self.max_delivery_attempts,
            },
        }
        response = requests.put(
            f"{base}/subscriptions/{PUSH_SUBSCRIPTION}", json=push, timeout=scaled(10)
        )
        if response.status_code not in (200, 409):
            response.raise_for_status()
        self._push_subscription(
            base, ACCOUNTS_TOPIC, ACCOUNTS_DEAD_LETTER_TOPIC,
            ACCOUNTS_PUSH_SUBSCRIPTION, ACCOUNTS_DEAD_LETTER_SUBSCRIPTION,
        )  # fmt: skip

    def _push_subscription(
        self, base: str, topic: str, dead_letter: str, name: str, dead_letter_sub: str
    ) -> None:
        """A topic pushed to the worker, with a dead-letter topic and its pull
        subscription: the shape infra/pubsub.tf declares."""
        for t in (topic, dead_letter):
            requests.put(f"{base}/topics/{t}", json={}, timeout=10)
        requests.put(
            f"{base}/subscriptions/{dead_letter_sub}",
            json={"topic": f"projects/{self.project}/topics/{dead_letter}"},
            timeout=10,
        )
        push: dict[str, Any] = {
            "topic": f"projects/{self.project}/topics/{topic}",
            "pushConfig": {"pushEndpoint": f"{self.api_url}/reindexer/"},
            "ackDeadlineSeconds": 600,
            "retryPolicy": {"minimumBackoff": "1s", "maximumBackoff": "5s"},
            "deadLetterPolicy": {
                "deadLetterTopic": f"projects/{self.project}/topics/{dead_letter}",
                "maxDeliveryAttempts": self.max_delivery_attempts,
            },
        }
        response = requests.put(f"{base}/subscriptions/{name}", json=push, timeout=10)
        if response.status_code not in (200, 409):
            response.raise_for_status()

    def _spawn_firestore(self, import_from: Path | None = None) -> None:
        p = self.ports
        argv = [
            self._tools["firestore"],
            "start",
            "--host=127.0.0.1",
            f"--port={p.firestore}",
            f"--project_id={self.project}",
            f"--functions_emulator=127.0.0.1:{p.functions}",
            # The rules production enforces: without them the emulator lets anything on
            # this machine read and write every user's data without a token. Admin
            # credentials (the functions, the tests' seeding) bypass them, as in production.
            f"--rules={ROOT / 'firestore.rules'}",
        ]
        if import_from is None and self.data is not None:
            import_from = self.data.firestore_snapshot()
        if import_from is not None:
            argv.append(f"--import-data={import_from}")
        self._spawn("firestore", argv)

    def stop_firestore(self, snapshot: bool = True) -> Path | None:
        """Stop the Firestore emulator (a Firestore outage). The emulator keeps data in
        memory only, so with ``snapshot`` its data is exported first, to be imported by
        :meth:`start_firestore` - production Firestore is durable; the emulator is not."""
        exported: Path | None = None
        if snapshot:
            target = Path(tempfile.mkdtemp(prefix="firestore-export-", dir=self.log_dir))
            response = requests.post(
                f"http://127.0.0.1:{self.ports.firestore}/emulator/v1/projects/{self.project}:export",
                json={
                    "database": f"projects/{self.project}/databases/(default)",
                    "export_directory": str(target),
                },
                timeout=scaled(60),
            )
            response.raise_for_status()
            exported = next(target.glob("*/*.overall_export_metadata"))
        self._kill("firestore")
        return exported

    def start_firestore(self, import_from: Path | None = None) -> None:
        """Start the Firestore emulator again (with a snapshot) and re-register the
        indexer trigger, which the emulator forgets when it stops."""
        self._spawn_firestore(import_from)
        _wait_http(
            f"http://127.0.0.1:{self.ports.firestore}/", "Firestore emulator", self, "firestore"
        )
        if self.alive("functions"):
            self.register_trigger()

    def reset_firestore(self) -> None:
        requests.delete(
            f"http://127.0.0.1:{self.ports.firestore}/emulator/v1/projects/{self.project}"
            "/databases/(default)/documents",
            timeout=scaled(30),
        ).raise_for_status()

    def save(self) -> None:
        """Snapshot Firestore and the Auth accounts into the data folder (if any)."""
        if self.data is None or not self.alive("firestore"):
            return
        hub = self.hub_url if self.alive("auth") else None
        self.data.save(self.firestore_url, hub, self.project)

    def snapshot_error(self) -> str | None:
        """Why the last periodic save failed, if it did."""
        return self._saver.last_error if self._saver is not None else None

    def stop(self) -> str | None:
        """Save the data (if kept), then stop every process at once: SIGTERM to each
        group, a scaled grace period for all of them together, SIGKILL to the rest.
        Returns why the last snapshot failed, if it did (the processes stop anyway)."""
        failure = None
        try:
            if self._saver is not None:
                self._saver.stop()
                self._saver = None
            if self.data is not None and self._procs:
                try:
                    self.save()
                except OSError as exc:  # the export failed (requests' errors are OSErrors)
                    failure = f"{type(exc).__name__}: {exc}"
        finally:  # whatever the save raised (a bug surfaces), nothing is left running
            self._end_processes()
        return failure

    def _end_processes(self) -> None:
        procs = list(self._procs.items())
        self._procs.clear()
        for _, proc in procs:
            if proc.poll() is None or group_running(proc.pid):
                signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + scaled(15)
        while time.monotonic() < deadline and any(
            proc.poll() is None or group_running(proc.pid) for _, proc in procs
        ):
            time.sleep(0.1)
        for _, proc in procs:
            if proc.poll() is None or group_running(proc.pid):
                signal_group(proc.pid, signal.SIGKILL)
            with suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=scaled(10))
            self._reaper.forget(proc.pid)
        self._reaper.close()
        if self.data is not None:
            self.data.prune_storage_folders()  # the server has stopped
            self.data.release()
        if self._temporary_logs and not self.keep_logs:
            shutil.rmtree(self.log_dir, ignore_errors=True)

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.log_dir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    # -- processes ---------------------------------------------------------------
    def _spawn(
        self, name: str, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 (lives with the process)
        full_env = {**os.environ, **(env or {})}
        full_env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "shared"), full_env.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        self._procs[name] = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=full_env,
            cwd=cwd,
            start_new_session=True,  # its own process group: we can stop the java child too
        )
        self._reaper.watch(self._procs[name].pid)  # stopped even if this process is killed

    def _kill(self, name: str) -> None:
        proc = self._procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        # Wait for the whole group, not just the leader: the emulators' launchers are
        # shell scripts that die at once on SIGTERM while their JVM keeps serving for a
        # second or two. A Firestore "outage" that still acknowledged writes after its
        # snapshot would lose them on restart (seen in CI as "acknowledged notes lost").
        try:
            for sig, wait in ((signal.SIGTERM, scaled(10)), (signal.SIGKILL, scaled(5))):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    return
                deadline = time.monotonic() + wait
                try:
                    proc.wait(timeout=wait)
                except subprocess.TimeoutExpired:
                    continue
                while group_running(proc.pid) and time.monotonic() < deadline:
                    time.sleep(0.05)
                if not group_running(proc.pid):
                    return
        finally:
            self._reaper.forget(proc.pid)

    def alive(self, name: str) -> bool:
        proc = self._procs.get(name)
        return proc is not None and proc.poll() is None


@contextmanager
def running(stack: Stack) -> Iterator[Stack]:
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def _wait_http(url: str, what: str, stack: Stack, name: str, timeout: float = 30) -> None:
    timeout = scaled(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not stack.alive(name):
            raise RuntimeError(f"{what} exited during start-up:\n{stack.log_tail(name)}")
        try:
            if requests.get(url, timeout=2).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"{what} did not become ready at {url} in {timeout:.0f}s:\n{stack.log_tail(name)}"
    )
