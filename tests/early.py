"""Checks that are one long command whose result a test reads (mypy over the whole
tree, the web client's type check and unit tests), started in the background as
soon as the session's tests are collected (in an xdist worker: at its first test,
those its group of tests reads; tests/conftest.py), so they run while the other
tests go on instead of after them; the test that reads one waits for it then. A test selected without its command started (run alone, or the command
never registered) starts it when it asks.

A test names the command it reads with ``@pytest.mark.early("name")`` and reads it
with ``result("name")``; the command is registered at import of the test module
(``register``), which collection does before anything starts. Every command runs in
its own process group with its output in temporary files, and ``stop_all`` (at the
end of the session, however it ends) stops any still running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from footnote.dev.timeouts import scaled


@dataclass
class _Command:
    argv: list[str]
    cwd: Path
    env: dict[str, str] | None
    timeout: float
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    out: IO[bytes] | None = None
    err: IO[bytes] | None = None
    done: subprocess.CompletedProcess[str] | None = field(default=None)


_COMMANDS: dict[str, _Command] = {}


def register(
    name: str,
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 600,
) -> None:
    """The command behind ``name`` (the first registration wins: a module imported
    twice registers the same command)."""
    _COMMANDS.setdefault(name, _Command(list(argv), cwd, env, timeout))


def start(names: set[str]) -> None:
    for name in sorted(names):
        command = _COMMANDS.get(name)
        if command is not None and command.proc is None and command.done is None:
            command.out = tempfile.TemporaryFile()  # noqa: SIM115 (lives with the process)
            command.err = tempfile.TemporaryFile()  # noqa: SIM115
            command.started = time.monotonic()
            command.proc = subprocess.Popen(
                command.argv,
                cwd=command.cwd,
                env=command.env,
                stdout=command.out,
                stderr=command.err,
                start_new_session=True,  # its own group: stop_all stops its children too
            )


def result(name: str) -> subprocess.CompletedProcess[str]:
    """The command's outcome, waiting for it (started now if it was not)."""
    command = _COMMANDS[name]
    if command.done is not None:
        return command.done
    start({name})
    assert command.proc is not None and command.out is not None and command.err is not None
    # The budget counts from its start: it shared the machine with the tests meanwhile.
    remaining = command.started + scaled(command.timeout) - time.monotonic()
    try:
        command.proc.wait(timeout=max(remaining, 1))
    except subprocess.TimeoutExpired:
        _stop(command)
        raise
    command.out.seek(0)
    command.err.seek(0)
    command.done = subprocess.CompletedProcess(
        command.argv,
        command.proc.returncode,
        command.out.read().decode(errors="replace"),
        command.err.read().decode(errors="replace"),
    )
    command.out.close()
    command.err.close()
    return command.done


def _stop(command: _Command) -> None:
    proc = command.proc
    if proc is None or proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def stop_all() -> None:
    for command in _COMMANDS.values():
        _stop(command)
