"""`footnote dev` (`make dev`) as a user runs it: piped into tee, stopped with Ctrl-C,
started again the next day with yesterday's notes.

Found by a probe: with `make dev 2>&1 | tee dev.log`, Ctrl-C kills tee first, the
shutdown path died writing "Stopping…" to the closed pipe, and the emulators and the
functions host kept running. A second `make dev` then failed obscurely on a taken port.

Every run here uses free ports for all eight of the stack's ports (never the dev
ports a person's `make dev` uses) and a data folder of its own; the `dev` fixture
stops each run whatever happens to the test (Ctrl-C, then SIGTERM, then SIGKILL of
its process group, after which footnote.dev.reaper stops the emulators).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import astuple
from pathlib import Path
from typing import IO, Any

import pytest
import requests

from footnote.dev.demo import DEMO_EMAIL, DEMO_NOTES, DemoClient
from footnote.dev.prerequisites import Ports, port_free
from footnote.dev.timeouts import scaled

pytestmark = pytest.mark.emulator
ROOT = Path(__file__).resolve().parents[2]


def _argv(ports: Ports, data_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "footnote.cli",
        "dev",
        f"--firestore-port={ports.firestore}",
        f"--pubsub-port={ports.pubsub}",
        f"--auth-port={ports.auth}",
        f"--port={ports.functions}",
        f"--hosting-port={ports.hosting}",
        f"--web-port={ports.web}",
        f"--hub-port={ports.hub}",
        f"--storage-port={ports.storage}",
        f"--data-dir={data_dir}",
        *extra,
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "shared"), "HF_HUB_OFFLINE": "1"}


class Dev:
    """One `footnote dev` run, its output read line by line."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=_env(),
            cwd=ROOT,
            start_new_session=True,  # Ctrl-C is sent to it alone; the group can be killed
        )
        self.seen: list[str] = []

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def wait_running(self) -> str:
        """Read until "Press Ctrl-C" (the stack is up); all output so far."""
        deadline = time.monotonic() + scaled(240)
        while time.monotonic() < deadline:
            line = self.stdout.readline().decode(errors="replace")
            self.seen.append(line)
            if "Press Ctrl-C" in line or not line:
                break
        out = "".join(self.seen)
        assert "Press Ctrl-C" in out, out
        return out

    def ctrl_c(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=scaled(60))

    def finish(self) -> None:
        """Stop it, however the test ended: Ctrl-C, SIGTERM, then SIGKILL."""
        for sig, wait in ((signal.SIGINT, 60), (signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=scaled(wait))
            except subprocess.TimeoutExpired:
                continue
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def dev(tmp_path: Path) -> Iterator[Callable[..., Dev]]:
    runs: list[Dev] = []

    def start(ports: Ports, *extra: str, data_dir: Path | None = None) -> Dev:
        run = Dev(_argv(ports, data_dir or tmp_path / "data", *extra))
        runs.append(run)
        return run

    try:
        yield start
    finally:
        for run in runs:
            run.finish()


def _all_free(ports: Ports) -> bool:
    return all(port_free(p) for p in astuple(ports))


def _wait_all_free(ports: Ports) -> list[int]:
    deadline = time.monotonic() + scaled(20)
    while time.monotonic() < deadline and not _all_free(ports):
        time.sleep(0.2)
    return [p for p in astuple(ports) if not port_free(p)]


def test_a_taken_port_is_reported_before_anything_starts(dev: Callable[..., Dev]) -> None:
    """Every port is checked, the Hosting and web ones too, naming who holds it."""
    ports = Ports.free()
    with socket.socket() as web, socket.socket() as fs:
        for squatter, port in ((web, ports.web), (fs, ports.firestore)):
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
        run = dev(ports, "--no-demo")
        assert run.proc.wait(timeout=scaled(120)) == 2
        out = run.stdout.read().decode()
    assert f"{ports.firestore} for the Firestore emulator (--firestore-port)" in out, out
    assert f"{ports.web} for the web client (--web-port)" in out, out
    assert f"held by pid {os.getpid()}" in out, out  # this test's process holds them
    assert "Traceback" not in out
    assert _all_free(ports)  # nothing was started


def _sign_in(auth_host: str, email: str, password: str) -> requests.Response:
    return requests.post(
        f"http://{auth_host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
        json={"email": email, "password": password, "returnSecureToken": True},
        timeout=scaled(10),
    )


def test_a_day_of_make_dev_stopped_restarted_killed_and_reset(
    dev: Callable[..., Dev], tmp_path: Path
) -> None:
    """One data folder through a day of ``make dev``, each start a full stack (the
    emulators, the functions host with its model, the web client):

    1. the first start loads the demo; a person signs up, saves a note and uploads an
       archive; tee is gone (stdout closed) when Ctrl-C comes, and still every
       process stops and every port is free;
    2. the second start keeps it all (the account, the note and its chunks, the
       upload in Cloud Storage), adds the demo notes once, and prints a cited answer;
       then it is killed with SIGKILL, which it cannot handle: the reaper it started
       stops the emulators;
    3. ``--reset`` starts from nothing: the account is gone.
    """
    ports = Ports.free()
    data = tmp_path / "kept"
    first = dev(ports, data_dir=data)
    out = first.wait_running()
    assert "Loading demo notes" in out, out
    assert not any(port_free(p) for p in astuple(ports)), "the stack is not listening"
    api, auth_host = f"http://127.0.0.1:{ports.functions}", f"127.0.0.1:{ports.auth}"
    client = DemoClient(api, auth_host, "demo-footnote")
    user = client.sign_up("kept@footnote.test", "kept-password")
    saved = client.call("POST", "/notes", user, json={"text": "The spare key is under the fern."})
    assert saved.status_code == 201, saved.text
    note_id = saved.json()["id"]
    client.wait_indexed(user, [note_id], timeout=120)
    archive = b"# Fern\n\nThe spare key is under the fern.\n"
    uploaded = client.call(
        "POST", "/imports", user, params={"name": "fern.md"}, data=archive,
        headers={"Content-Type": "application/octet-stream"},
    )  # fmt: skip
    assert uploaded.status_code == 202, uploaded.text
    first.stdout.close()  # tee is gone: every later write to stdout fails
    assert first.ctrl_c() == 0
    assert _wait_all_free(ports) == []

    second = dev(ports, data_dir=data)
    out = second.wait_running()
    assert "already in the demo account: none added" in out, out
    # The cited answer is printed at every start, not only when demo notes were added.
    assert "\nQ: " in out and "answered in" in out, out
    assert re.search(r"^   \[N1\] note \S+: ", out, re.MULTILINE), out  # with its citation
    signed_in = _sign_in(auth_host, "kept@footnote.test", "kept-password")
    assert signed_in.status_code == 200, signed_in.text  # the account is there
    token = signed_in.json()["idToken"]
    note = client.call("GET", f"/notes/{note_id}", token)
    assert note.status_code == 200, note.text
    assert note.json()["text"] == "The spare key is under the fern."
    found = client.call("POST", "/search", token, json={"query": "spare key fern"}).json()
    assert note_id in {r["noteId"] for r in found["results"]}  # its chunks came back too
    # The uploaded file is still in Cloud Storage: read back through the SDK.
    from google.cloud import storage  # type: ignore[attr-defined]

    with pytest.MonkeyPatch.context() as env:
        env.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{ports.storage}")
        gcs = storage.Client(project="demo-footnote")
        kept = [
            blob.download_as_bytes()
            for blob in gcs.list_blobs("demo-footnote-footnote-uploads", prefix="users/")
            if blob.name.endswith("/fern.md")
        ]
    assert kept == [archive]
    demo = client.sign_up(DEMO_EMAIL)
    titles = [str(n.get("title")) for n in client.notes(demo)]
    assert sorted(titles) == sorted(n["title"] for n in DEMO_NOTES)  # each once
    os.kill(second.proc.pid, signal.SIGKILL)  # footnote dev alone, not its group
    second.proc.wait(timeout=scaled(10))
    deadline = time.monotonic() + scaled(40)
    while time.monotonic() < deadline and not _all_free(ports):
        time.sleep(0.3)
    assert [p for p in astuple(ports) if not port_free(p)] == []

    third = dev(ports, "--no-demo", "--reset", data_dir=data)
    out = third.wait_running()
    assert "Reset: deleted the local data" in out, out
    refused: Any = _sign_in(auth_host, "kept@footnote.test", "kept-password")
    assert refused.status_code == 400 and "EMAIL_NOT_FOUND" in refused.text, refused.text
    assert third.ctrl_c() == 0
