"""Shared fixtures. The emulator suite starts the real local stack once per session."""

from __future__ import annotations

import os
import signal
import uuid
import warnings
from collections.abc import Iterator

import pytest

from footnote.dev.demo import DemoClient
from footnote.dev.prerequisites import Ports, PrerequisiteMissing
from footnote.dev.stack import Stack
from footnote.ports import Store


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


# `make test` runs the suite in two pytest-xdist workers (-n 2 --dist loadgroup): the
# tests that use the session's local stack in one ("stack", in collection order, one
# stack as without xdist), every other test in the other ("rest": unit, contract,
# infra, web, the `footnote dev` runs on ports of their own ...), so the CPU-bound
# checks run while the stack tests wait on emulators and queues. A test reaches the
# stack through the ``stack`` fixture (directly or through another fixture) or, when a
# fixture asks for it at run time (request.getfixturevalue), by the ``stack`` mark.
STACK_GROUP, REST_GROUP = "stack", "rest"


def _uses_stack(item: pytest.Item) -> bool:
    return (
        "stack" in getattr(item, "fixturenames", ()) or item.get_closest_marker("stack") is not None
    )


def _group(item: pytest.Item) -> str:
    return STACK_GROUP if _uses_stack(item) else REST_GROUP


def _xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _xdist_worker(config):
        for item in items:
            item.add_marker(pytest.mark.xdist_group(_group(item)))


def _early_names(items: list[pytest.Item]) -> set[str]:
    return {m.args[0] for item in items for m in item.iter_markers("early")}


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the long checks the collected tests read (tests/early.py) now, beside
    the rest of the session. An xdist worker collects every test but runs one group:
    it starts them at its first test, those its group reads (below)."""
    from tests import early

    if not _xdist_worker(session.config):
        early.start(_early_names(session.items))


_worker_group: str | None = None  # the group this xdist worker runs, from its first test


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    global _worker_group
    if _worker_group is not None or not _xdist_worker(item.config):
        return
    _worker_group = _group(item)
    from tests import early

    early.start(_early_names([i for i in item.session.items if _group(i) == _worker_group]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests import early

    early.stop_all()


@pytest.fixture(scope="session")
def stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    # A CI timeout or `kill` sends SIGTERM, whose default action skips fixture
    # teardown and leaves the emulators running; as an interrupt, pytest stops them.
    signal.signal(signal.SIGTERM, _interrupt)
    if _worker_group not in (None, STACK_GROUP):
        # Still correct (a stack of its own, on ports of its own), but a second start.
        warnings.warn(
            f"a test outside the xdist group {STACK_GROUP!r} started a stack of its own: "
            "mark the param of the fixture that asks for it with pytest.mark.stack",
            stacklevel=1,
        )
    s = Stack(
        Ports.free(),
        extra_env={
            "REINDEX_PAGE_SIZE": "3",
            "LOG_LEVEL": "INFO",
            "FOOTNOTE_DEV_FAULTS": "1",
            # tests/load drives each user at machine speed; tests/emulator/test_quotas.py
            # restarts the functions host with its own, small limits.
            "QUOTA_CHAT_PER_MINUTE": "600",
            "QUOTA_SEARCH_PER_MINUTE": "1200",
            # tests/emulator/test_account_revocation.py waits this bound out for reads.
            "AUTH_REVOCATION_CACHE_S": "2",
        },
        max_delivery_attempts=5,
    )
    try:
        s.start()
    except PrerequisiteMissing as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"local stack unavailable: {exc}")
    saved = {k: os.environ.get(k) for k in s.client_env()}
    os.environ.update(s.client_env())
    try:
        yield s
    finally:
        # The processes' logs go with the stack, unless a test failed.
        s.keep_logs = request.session.testsfailed > 0
        s.stop()
        if s.keep_logs:
            print(f"\nthe local stack's logs are kept in {s.log_dir}")
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def client(stack: Stack) -> DemoClient:
    return DemoClient(
        stack.api_url, stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"], stack.project
    )


class User:
    def __init__(self, client: DemoClient, email: str) -> None:
        self.client = client
        self.email = email
        self.token = client.sign_up(email)
        import base64
        import json

        payload = self.token.split(".")[1]
        self.uid = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))[
            "user_id"
        ]

    def call(self, method: str, path: str, **kw: object):
        return self.client.call(method, path, self.token, **kw)

    def add_note(self, text: str, **fields: object) -> str:
        response = self.call("POST", "/notes", json={"text": text, **fields})
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def wait_indexed(self, *note_ids: str) -> None:
        self.client.wait_indexed(self.token, list(note_ids), timeout=120)

    def chat(self, message: str, **kw: object) -> dict:  # type: ignore[type-arg]
        response = self.call("POST", "/chat", json={"message": message, **kw})
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]


@pytest.fixture
def new_user(client: DemoClient):
    def make() -> User:
        return User(client, f"user-{uuid.uuid4().hex[:10]}@footnote.test")

    return make


@pytest.fixture(scope="session")
def firestore_client(stack: Stack):
    from google.cloud import firestore

    return firestore.Client(project=stack.project)


@pytest.fixture(scope="session")
def direct_firestore_client(stack: Stack):
    """A client of the same emulator, in a project no function watches.

    Tests that drive a store directly must not share the stack's project: its
    indexer reacts to every note written there and raced them (it removed a
    deleted note's chunks first, so the test's own removal found none).
    """
    from google.cloud import firestore

    return firestore.Client(project=f"{stack.project}-direct")


@pytest.fixture(params=["memory", pytest.param("firestore", marks=pytest.mark.stack)])
def each_store(request: pytest.FixtureRequest) -> Store:
    """Each store adapter in turn: in memory, then Firestore on the emulator (in the
    project no function watches, see ``direct_firestore_client``)."""
    if request.param == "memory":
        from footnote.adapters.memory_store import MemoryStore

        return MemoryStore()
    from footnote.adapters.firestore_store import FirestoreStore

    return FirestoreStore(request.getfixturevalue("direct_firestore_client"))
