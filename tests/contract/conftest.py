"""The wire-level fake of the Google APIs, shared by the contract suites."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.google_apis import FakeGoogleApis


@pytest.fixture(scope="session")
def google_server() -> Iterator[FakeGoogleApis]:
    with FakeGoogleApis() as fake:
        yield fake


@pytest.fixture
def google(google_server: FakeGoogleApis) -> Iterator[FakeGoogleApis]:
    """The fake, clean for each test (no requests, failures, datapoints)."""
    google_server.reset()
    yield google_server
    google_server.reset()
