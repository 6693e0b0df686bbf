"""What the local stack needs from the machine: the emulator tools and free ports.

``check_prerequisites`` finds the binaries or says in one line what to install;
``Ports`` are the stack's ports, fixed for ``footnote dev`` or free ones for tests.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import socket
import subprocess
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


class PrerequisiteMissing(SystemExit):
    """A tool the stack needs is not installed: one line saying what to install."""


class PortTaken(PrerequisiteMissing):
    """A port the stack needs is in use (often a previous ``make dev`` still running)."""


@dataclass
class Ports:
    firestore: int = 8085
    pubsub: int = 8086
    auth: int = 9099
    functions: int = 8080
    hosting: int = 5002  # the Hosting emulator (the web client's files and headers)
    web: int = 5080  # the local web origin: Hosting + /api + Auth (footnote.dev.webproxy)
    # The Auth emulator's Emulator Hub, through which its accounts are exported
    # (footnote.dev.persistence). Not firebase-tools' default 4400: that is where the
    # Hosting emulator's own hub (which takes any free port) goes first.
    hub: int = 9098
    # The Cloud Storage server (gcp-storage-emulator, GCS JSON API): the Firebase
    # Storage emulator's default port, which it stands in for (footnote.dev.stack).
    storage: int = 9199

    @classmethod
    def free(cls) -> Ports:
        """Distinct free ports: every socket stays bound until all are chosen, so the
        kernel cannot hand the same ephemeral port out twice (it did, on a loaded CI)."""
        return cls(*free_ports(len(fields(cls))))


def check_prerequisites() -> dict[str, str]:
    """Paths of the emulator binaries, or a one-line message on what to install."""
    if shutil.which("java") is None:
        raise PrerequisiteMissing(
            "Java 17+ is required for the Firestore and Pub/Sub emulators: install a JDK (e.g. apt-get install openjdk-17-jre-headless)."
        )
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        raise PrerequisiteMissing(
            "google-cloud-cli is required: https://cloud.google.com/sdk/docs/install (with the cloud-firestore-emulator and pubsub-emulator components)."
        )
    sdk_root = os.environ.get("CLOUDSDK_ROOT") or _sdk_root(gcloud)
    firestore = (
        Path(sdk_root) / "platform" / "cloud-firestore-emulator" / "cloud_firestore_emulator"
    )
    pubsub = Path(sdk_root) / "platform" / "pubsub-emulator" / "bin" / "cloud-pubsub-emulator"
    if not firestore.exists():
        raise PrerequisiteMissing(
            "The Firestore emulator is missing: gcloud components install cloud-firestore-emulator (or apt-get install google-cloud-cli-firestore-emulator)."
        )
    if not pubsub.exists():
        raise PrerequisiteMissing(
            "The Pub/Sub emulator is missing: gcloud components install pubsub-emulator (or apt-get install google-cloud-cli-pubsub-emulator)."
        )
    firebase = ROOT / "node_modules" / ".bin" / "firebase"
    if not firebase.exists():
        raise PrerequisiteMissing(
            "firebase-tools is missing: run 'npm ci' in the repository (Node 20+)."
        )
    if importlib.util.find_spec("gcp_storage_emulator") is None:
        raise PrerequisiteMissing(
            "The Cloud Storage server is missing: pip install -e '.[dev]' (gcp-storage-emulator)."
        )
    return {"firestore": str(firestore), "pubsub": str(pubsub), "firebase": str(firebase)}


def _sdk_root(gcloud: str) -> str:
    out = subprocess.run(
        [gcloud, "info", "--format=value(installation.sdk_root)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return out.stdout.strip() or str(Path(gcloud).resolve().parents[1])


def port_free(port: int) -> bool:
    """Nothing listens on it. SO_REUSEADDR, as servers bind: connections of a stack
    that just stopped linger in TIME_WAIT and do not keep the next one from starting."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def port_holder(port: int) -> str | None:
    """Which process listens on ``port`` ("pid 123: java … CloudFirestore …"), from
    /proc; None when that cannot be told (another user's process, not Linux)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            # local_address is HEXIP:HEXPORT; state 0A is LISTEN
            if len(cols) > 9 and cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(cols[9])
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for proc in Path("/proc").glob("[0-9]*"):
        if _holds(proc, wanted):
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                argv = []
            command = " ".join(" ".join(a.decode(errors="replace") for a in argv).split())
            if len(command) > 160:
                command = command[:157] + "..."
            return f"pid {proc.name}: {command}"
    return None


def _holds(proc: Path, sockets: set[str]) -> bool:
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:  # gone, or another user's
        return False
    for fd in fds:
        try:
            if os.readlink(fd) in sockets:
                return True
        except OSError:  # closed meanwhile
            continue
    return False


def free_ports(count: int) -> list[int]:
    """Distinct ports free now, below the kernel's ephemeral range.

    A port bound to 0 comes from the ephemeral range, from which the kernel also hands
    out the local end of every outgoing connection (an emulator's, the browser's): in
    the seconds between choosing a port and the server binding it, a connection took
    one (a loaded CI: "Address already in use" from the web proxy). Below the range,
    only a server binding it on purpose can. Every socket stays bound until all are
    chosen, so no port is chosen twice."""
    low = _ephemeral_low()
    ports = list(range(max(1024, low - 12_000), low))
    random.shuffle(ports)
    sockets: list[socket.socket] = []
    chosen: list[int] = []
    try:
        for port in ports:
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            sockets.append(s)
            chosen.append(port)
            if len(chosen) == count:
                return chosen
        raise OSError(f"no {count} free ports below {low}")
    finally:
        for s in sockets:
            s.close()


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux; 32768 elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768
