"""`footnote dev` (`make dev`) as a user runs it: piped into tee, stopped with Ctrl-C.

Found by a probe: with `make dev 2>&1 | tee dev.log`, Ctrl-C kills tee first, the
shutdown path died writing "Stopping…" to the closed pipe, and the emulators and the
functions host kept running. A second `make dev` then failed obscurely on a taken port.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from footnote.dev.prerequisites import free_port, port_free

pytestmark = pytest.mark.emulator
ROOT = Path(__file__).resolve().parents[2]


def _dev(*ports: int) -> list[str]:
    fs, ps, auth, api = ports
    return [
        sys.executable,
        "-m",
        "footnote.cli",
        "dev",
        "--no-demo",
        f"--firestore-port={fs}",
        f"--pubsub-port={ps}",
        f"--auth-port={auth}",
        f"--port={api}",
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "shared"), "HF_HUB_OFFLINE": "1"}


def test_ctrl_c_stops_everything_even_when_the_output_pipe_is_gone() -> None:
    ports = tuple(free_port() for _ in range(4))
    proc = subprocess.Popen(
        _dev(*ports), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(), cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        seen = []
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            line = proc.stdout.readline().decode(errors="replace")
            seen.append(line)
            if "Press Ctrl-C" in line or not line:
                break
        assert any("Press Ctrl-C" in line for line in seen), "".join(seen)
        assert not any(port_free(p) for p in ports), "the stack is not listening"
        proc.stdout.close()  # tee is gone: every later write to stdout fails
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not all(port_free(p) for p in ports):
            time.sleep(0.2)
        assert all(port_free(p) for p in ports), [p for p in ports if not port_free(p)]
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_taken_port_is_reported_in_one_line_before_anything_starts() -> None:
    ports = [free_port() for _ in range(4)]
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", ports[0]))
        squatter.listen()
        run = subprocess.run(
            _dev(*ports), capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120
        )
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"port already in use: {ports[0]} for the Firestore emulator" in run.stderr
    assert "--firestore-port" in run.stderr
    assert "Traceback" not in run.stderr
    assert all(port_free(p) for p in ports[1:])  # nothing was started
