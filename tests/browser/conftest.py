"""Browser tests: Debian's Chromium (never a downloaded browser) driven by Playwright
against the real local stack, with the built client served through the Hosting emulator."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from footnote.dev.prerequisites import PrerequisiteMissing
from footnote.dev.stack import Stack

CHROMIUM = os.environ.get("FOOTNOTE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
PASSWORD = "footnote-test-pw"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def web_url(stack: Stack) -> str:
    try:
        stack.start_web()
    except PrerequisiteMissing as exc:
        _unavailable(f"web client unavailable: {exc}")
    return stack.web_url


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    if not Path(CHROMIUM).is_file():
        _unavailable(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    return {
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args() -> dict[str, Any]:
    return {"viewport": {"width": 1280, "height": 860}}


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture
def email() -> Iterator[str]:
    yield f"web-{uuid.uuid4().hex[:10]}@footnote.test"
