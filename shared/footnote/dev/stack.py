"""Start and stop the whole local stack: Firestore, Pub/Sub and Auth emulators,
the functions host, the Firestore trigger and the Pub/Sub push subscription.

Used by ``footnote dev`` (``make dev``) and by the emulator tests. The tools and
the ports it needs are checked in :mod:`footnote.dev.prerequisites`.

Why this module is a little over ~400 lines: starting and stopping are one
lifecycle over the same child processes (each emulator's process group, its
readiness probe, its log file), and the shutdown path must reach every one of
them even when stdout is gone; split apart, each half would need the other's
process table.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from footnote.dev.host import INDEXER_TRIGGER_ID
from footnote.dev.prerequisites import (
    ROOT,
    Ports,
    PortTaken,
    PrerequisiteMissing,
    check_prerequisites,
    port_free,
)

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


@dataclass
class Stack:
    ports: Ports = field(default_factory=Ports)
    project: str = PROJECT
    log_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="footnote-logs-")))
    extra_env: dict[str, str] = field(default_factory=dict)
    max_delivery_attempts: int = 5
    _procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _tools: dict[str, str] = field(default_factory=dict)

    # -- environment -----------------------------------------------------------
    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.functions}"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.web}"

    def client_env(self) -> dict[str, str]:
        """Variables that point Google SDKs at the emulators."""
        return {
            "FIRESTORE_EMULATOR_HOST": f"127.0.0.1:{self.ports.firestore}",
            "PUBSUB_EMULATOR_HOST": f"127.0.0.1:{self.ports.pubsub}",
            "FIREBASE_AUTH_EMULATOR_HOST": f"127.0.0.1:{self.ports.auth}",
            "GOOGLE_CLOUD_PROJECT": self.project,
            "GCLOUD_PROJECT": self.project,
        }

    # -- lifecycle -------------------------------------------------------------
    def start(self, with_functions: bool = True) -> None:
        tools = check_prerequisites()
        self.check_ports(with_functions)
        try:
            self._start_emulators(tools)
            self.configure_pubsub()
            if with_functions:
                self.start_functions()
                self.register_trigger()
        except BaseException:
            self.stop()
            raise

    def check_ports(self, with_functions: bool = True) -> None:
        """Fail with one clear line before starting anything: otherwise an emulator
        dies on bind, or worse, our health checks reach a stale stack and pass."""
        p = self.ports
        wanted = [
            ("Firestore emulator", p.firestore, "--firestore-port"),
            ("Pub/Sub emulator", p.pubsub, "--pubsub-port"),
            ("Auth emulator", p.auth, "--auth-port"),
        ]
        if with_functions:
            wanted.append(("functions host (API)", p.functions, "--port"))
        taken = [(what, port, flag) for what, port, flag in wanted if not port_free(port)]
        if taken:
            listed = "; ".join(f"{port} for the {what} ({flag})" for what, port, flag in taken)
            raise PortTaken(
                f"port already in use: {listed}. Is another 'make dev' (or its emulators) "
                "still running? Stop it, or choose other ports with the flags shown."
            )

    def _start_emulators(self, tools: dict[str, str]) -> None:
        p = self.ports
        self._tools = tools
        self._spawn_firestore()
        self._spawn(
            "pubsub",
            [tools["pubsub"], "--host=127.0.0.1", f"--port={p.pubsub}"],
            env={"PUBSUB_PROJECT_ID": self.project},
        )
        config = self.log_dir / "firebase.json"
        config.write_text(
            json.dumps(
                {
                    "emulators": {
                        "auth": {"host": "127.0.0.1", "port": p.auth},
                        "ui": {"enabled": False},
                        "singleProjectMode": True,
                    },
                }
            )
        )
        self._spawn(
            "auth",
            [
                tools["firebase"],
                "emulators:start",
                "--only",
                "auth",
                "--project",
                self.project,
                "--config",
                str(config),
            ],
            cwd=self.log_dir,
        )
        _wait_http(f"http://127.0.0.1:{p.firestore}/", "Firestore emulator", self, "firestore")
        _wait_http(f"http://127.0.0.1:{p.pubsub}/", "Pub/Sub emulator", self, "pubsub")
        _wait_http(f"http://127.0.0.1:{p.auth}/", "Auth emulator", self, "auth", timeout=90)

    def start_functions(self) -> None:
        env = {
            **self.client_env(),
            "ACCOUNT_DELETION_GRACE_S": LOCAL_DELETION_GRACE_S,
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
        _wait_http(f"{self.api_url}/healthz", "functions host", self, "functions", timeout=60)

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
        self._spawn(
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
            cwd=self.log_dir,
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
                f"--project={self.project}",
            ],
        )
        _wait_http(
            f"http://127.0.0.1:{self.ports.hosting}/",
            "Hosting emulator",
            self,
            "hosting",
            timeout=90,
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
        response = requests.post(url, json=body, timeout=10)
        response.raise_for_status()

    def configure_pubsub(self) -> None:
        base = f"http://127.0.0.1:{self.ports.pubsub}/v1/projects/{self.project}"
        topic = os.environ.get(
            "REINDEX_TOPIC", self.extra_env.get("REINDEX_TOPIC", "footnote-reindex")
        )
        for name in (topic, DEAD_LETTER_TOPIC):
            requests.put(f"{base}/topics/{name}", json={}, timeout=10)
        requests.put(
            f"{base}/subscriptions/{DEAD_LETTER_SUBSCRIPTION}",
            json={"topic": f"projects/{self.project}/topics/{DEAD_LETTER_TOPIC}"},
            timeout=10,
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
        response = requests.put(f"{base}/subscriptions/{PUSH_SUBSCRIPTION}", json=push, timeout=10)
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
                timeout=60,
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
            timeout=30,
        ).raise_for_status()

    def stop(self) -> None:
        for name in reversed(list(self._procs)):
            self._kill(name)

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

    def _kill(self, name: str) -> None:
        proc = self._procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        # Wait for the whole group, not just the leader: the emulators' launchers are
        # shell scripts that die at once on SIGTERM while their JVM keeps serving for a
        # second or two. A Firestore "outage" that still acknowledged writes after its
        # snapshot would lose them on restart (seen in CI as "acknowledged notes lost").
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            while _group_running(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not _group_running(proc.pid):
                return

    def alive(self, name: str) -> bool:
        proc = self._procs.get(name)
        return proc is not None and proc.poll() is None


def _group_running(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies do not count:
    a container's init may never reap them)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    procfs = Path("/proc")
    if not procfs.is_dir():
        return True
    for stat in procfs.glob("[0-9]*/stat"):
        try:
            # after "pid (comm)": state, ppid, pgrp, ...
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@contextmanager
def running(stack: Stack) -> Iterator[Stack]:
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def _wait_http(url: str, what: str, stack: Stack, name: str, timeout: float = 30) -> None:
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
