"""The local stack's helpers that need no emulator: timeouts, snapshots, port checks."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from footnote.dev import timeouts
from footnote.dev.persistence import COMPLETE, DataDir, DataDirBusy, Saver
from footnote.dev.prerequisites import Ports, PortTaken, port_holder
from footnote.dev.stack import Stack


def test_timeouts_scale_with_the_load_per_core_within_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FOOTNOTE_TIMEOUT_SCALE", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (7.0, 6.0, 5.0))
    assert timeouts.scaled(10) == pytest.approx(35)  # load 7 on 2 cores
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.2, 0.1))
    assert timeouts.scaled(10) == 10  # never shorter than written
    monkeypatch.setattr(os, "getloadavg", lambda: (100.0, 90.0, 80.0))
    assert timeouts.scaled(10) == 10 * timeouts.MAX_FACTOR
    monkeypatch.setenv("FOOTNOTE_TIMEOUT_SCALE", "2.5")
    assert timeouts.scaled(10) == 25


def _snapshot(parent: Path, name: str, complete: bool = True) -> Path:
    folder = parent / name
    (folder / "firestore_export_1").mkdir(parents=True)
    (folder / "firestore_export_1" / "firestore_export_1.overall_export_metadata").write_text("")
    if complete:
        (folder / COMPLETE).write_text("")
    return folder


def test_the_newest_complete_snapshot_is_imported_and_a_partial_one_ignored(
    tmp_path: Path,
) -> None:
    data = DataDir(tmp_path / "data")
    assert data.firestore_snapshot() is None and not data.has_data()
    _snapshot(data.firestore, "100")
    newest = _snapshot(data.firestore, "200")
    _snapshot(data.firestore, "300", complete=False)  # a crash mid-export
    _snapshot(data.firestore, "400.partial")
    found = data.firestore_snapshot()
    assert found is not None and found.is_relative_to(newest)
    assert found.name.endswith(".overall_export_metadata")


def test_auth_imports_the_newer_of_the_periodic_and_the_on_exit_export(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    periodic = data.auth / "100"
    for folder in (periodic, data.auth_on_exit):
        folder.mkdir(parents=True)
        (folder / "firebase-export-metadata.json").write_text("{}")
    (periodic / COMPLETE).write_text("")
    os.utime(periodic / "firebase-export-metadata.json", (1, 1))
    assert data.auth_snapshot() == data.auth_on_exit
    os.utime(data.auth_on_exit / "firebase-export-metadata.json", (0, 0))
    assert data.auth_snapshot() == periodic


def test_a_failed_export_keeps_the_previous_snapshot(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    before = _snapshot(data.firestore, "100")

    def failing(target: Path) -> None:
        (target / "half-written").write_text("")
        raise ConnectionError("emulator gone")

    with pytest.raises(ConnectionError):
        data._save_one(data.firestore, "200", failing)
    assert [p.name for p in data.firestore.iterdir()] == [before.name]

    def working(target: Path) -> None:
        _snapshot(target, "x")

    data._save_one(data.firestore, "300", working)
    assert [p.name for p in data.firestore.iterdir()] == ["300"]  # the old one dropped


def test_one_stack_per_data_folder(tmp_path: Path) -> None:
    first, second = DataDir(tmp_path / "data"), DataDir(tmp_path / "data")
    first.acquire()
    try:
        with pytest.raises(DataDirBusy, match=f"in use by pid {os.getpid()}"):
            second.acquire()
        with pytest.raises(DataDirBusy):
            second.reset()  # not under a running stack
        assert (tmp_path / "data").is_dir()
    finally:
        first.release()
    second.acquire()
    second.release()
    second.reset()
    assert not (tmp_path / "data").exists()


def test_every_port_is_checked_and_its_holder_named() -> None:
    ports = Ports.free()
    stack = Stack(ports)
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", ports.hosting))
        squatter.listen()
        assert port_holder(ports.hosting) == port_holder(ports.hosting)  # stable
        holder = port_holder(ports.hosting)
        assert holder is not None and holder.startswith(f"pid {os.getpid()}:")
        stack.check_ports(with_functions=True, with_web=False)  # Hosting not wanted
        with pytest.raises(PortTaken) as taken:
            stack.check_ports(with_functions=True, with_web=True)
    message = str(taken.value)
    assert f"{ports.hosting} for the Hosting emulator (--hosting-port)" in message
    assert f"held by pid {os.getpid()}" in message
    with pytest.raises(PortTaken, match="twice"):
        Stack(Ports(1, 1, 2, 3, 4, 5, 6)).check_ports()


def test_the_storage_servers_port_is_checked_too() -> None:
    ports = Ports.free()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", ports.storage))
        squatter.listen()
        with pytest.raises(PortTaken) as taken:
            Stack(ports).check_ports(with_functions=False)
    assert f"{ports.storage} for the Cloud Storage server (--storage-port)" in str(taken.value)
    assert Ports().storage == 9199  # dev's fixed port, which no test uses


def _wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_failed_periodic_save_is_reported_and_a_bug_in_it_surfaces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))

    def emulator_gone() -> None:
        raise ConnectionError("emulator gone")

    saver = Saver(emulator_gone, 0.01)
    saver.start()
    _wait_for(lambda: saver.last_error is not None)
    saver.stop()
    assert (saver.last_error, raised) == ("ConnectionError: emulator gone", [])

    bug = TypeError("a bug in saving")

    def buggy() -> None:
        raise bug

    saver = Saver(buggy, 0.01)
    saver.start()
    _wait_for(lambda: bool(raised))
    saver.stop()
    assert (saver.last_error, raised) == (None, [bug])  # not taken for an emulator down


@pytest.mark.parametrize("error", [ConnectionError("emulator gone"), TypeError("a bug")])
def test_stopping_ends_every_process_whatever_the_last_save_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    stack = Stack(log_dir=tmp_path / "logs", data=DataDir(tmp_path / "data"))
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    stack._procs["firestore"] = proc

    def save() -> None:
        raise error

    monkeypatch.setattr(stack, "save", save)
    try:
        if isinstance(error, OSError):
            assert stack.stop() == "ConnectionError: emulator gone"  # reported, not raised
        else:
            with pytest.raises(TypeError) as raised:
                stack.stop()
            assert raised.value is error
        assert proc.poll() is not None  # stopped either way
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_free_ports_are_distinct_bindable_and_below_the_ephemeral_range() -> None:
    # An ephemeral port can be taken by any outgoing connection before the server
    # binds it; a port below the range only by a server that means to.
    from footnote.dev.prerequisites import _ephemeral_low

    low = _ephemeral_low()
    free = Ports.free()
    ports = [getattr(free, f.name) for f in dataclasses.fields(free)]
    assert len(set(ports)) == len(ports) == len(dataclasses.fields(Ports))
    assert all(1024 <= p < low for p in ports)
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_a_stacks_own_log_folder_is_made_at_start_and_removed_at_stop() -> None:
    described = Stack(Ports(1, 2, 3, 4, 5, 6, 7, 8))
    assert not described.log_dir.exists()  # describing a stack makes no folder
    for keep in (False, True):
        stack = Stack(Ports(1, 2, 3, 4, 5, 6, 7, 8), keep_logs=keep)
        stack.log_dir.mkdir()  # as start() makes it
        (stack.log_dir / "functions.log").write_text("a line\n")
        stack.stop()
        assert stack.log_dir.exists() is keep  # kept only when asked (a failure)
        if keep:
            (stack.log_dir / "functions.log").unlink()
            stack.log_dir.rmdir()


def test_a_log_folder_given_to_the_stack_is_left_to_its_owner(tmp_path: Path) -> None:
    stack = Stack(Ports(1, 2, 3, 4, 5, 6, 7, 8), log_dir=tmp_path / "logs")
    stack.log_dir.mkdir()
    stack.stop()
    assert stack.log_dir.exists()


def test_empty_storage_folders_of_deleted_users_are_pruned(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    bucket = data.storage / ".cloudstorage" / "demo-footnote-footnote-uploads"
    (bucket / "users" / "gone-uid" / "uploads" / "s1").mkdir(parents=True)
    kept = bucket / "users" / "alive-uid" / "imports" / "a.md"
    kept.parent.mkdir(parents=True)
    kept.write_text("# a")
    (data.storage / ".cloudstorage" / "empty-bucket").mkdir()
    assert data.prune_storage_folders() == 3
    assert not (bucket / "users" / "gone-uid").exists()
    assert kept.read_text() == "# a"
    assert (data.storage / ".cloudstorage" / "empty-bucket").is_dir()  # a bucket stays
    assert data.prune_storage_folders() == 0
