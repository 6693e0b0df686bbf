"""Stop the stack's processes when the process that started them dies, however it dies.

Each emulator runs in its own process group (so that stopping it reaches the JVM
behind its launcher script), which also means it outlives its parent: a
``footnote dev`` or a pytest run killed with SIGKILL left a whole stack listening,
and the next ``make dev`` met taken ports. :class:`Reaper` starts this module as a
small watcher in a session of its own and tells it, over a pipe, each group
started (``+PGID``) and stopped (``-PGID``). The pipe closes when the parent exits,
by any means; the watcher then stops every group still listed (SIGTERM, then
SIGKILL) and exits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from footnote.dev.timeouts import scaled


class Reaper:
    """The parent's end: a watcher process that outlives nothing it was told about."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None

    def _pipe(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "footnote.dev.reaper"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # Ctrl-C in the terminal does not reach it
            )
        return self._proc

    def _send(self, line: str) -> None:
        try:
            stdin = self._pipe().stdin
            assert stdin is not None
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except (OSError, ValueError):
            pass  # no watcher: the ordinary shutdown path still stops everything

    def watch(self, pgid: int) -> None:
        self._send(f"+{pgid}")

    def forget(self, pgid: int) -> None:
        self._send(f"-{pgid}")

    def close(self) -> None:
        """Let the watcher go (after the groups were stopped and forgotten)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=scaled(30))
        except subprocess.TimeoutExpired:
            proc.kill()


def stop_groups(pgids: set[int], grace: float) -> None:
    """SIGTERM every group, wait up to ``grace`` seconds for all, SIGKILL the rest."""
    for pgid in pgids:
        signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(group_running(p) for p in pgids):
        time.sleep(0.1)
    for pgid in pgids:
        signal_group(pgid, signal.SIGKILL)


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_running(pgid: int) -> bool:
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


def main() -> None:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # only the closed pipe ends the watch
    watched: set[int] = set()
    for raw in sys.stdin.buffer:
        line = raw.decode(errors="replace").strip()
        if len(line) > 1 and line[1:].isdigit():
            pgid = int(line[1:])
            if line[0] == "+":
                watched.add(pgid)
            elif line[0] == "-":
                watched.discard(pgid)
    if watched:
        stop_groups(watched, scaled(15))


if __name__ == "__main__":
    main()
