"""The web client's build checks, run by `make test`: its types are generated from the
API's own OpenAPI description and are current, `tsc --noEmit` passes (so a schema
change that breaks the client fails here and in `npm run build`), and its Vitest unit
tests pass. Without node_modules (`npm --prefix web ci`) these are skipped locally,
with that reason, and fail in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from scripts.web_schema import CHECKED_IN, default_spec, render

from tests import early

WEB = Path(__file__).resolve().parents[2] / "web"
NPM = shutil.which("npm")


if NPM is not None:
    # `npm test` (tsc, then Vitest) runs in the background from the start of the
    # session (tests/early.py): it is CPU-bound and needs nothing the tests change.
    early.register("web-test", [NPM, "test"], cwd=WEB, timeout=300)


def _require_node_modules() -> None:
    if NPM is None or not (WEB / "node_modules" / ".bin" / "tsc").exists():
        reason = "web/node_modules is missing: run 'npm --prefix web ci' (Node 20+)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _npm(*args: str, cwd: Path = WEB) -> subprocess.CompletedProcess[str]:
    _require_node_modules()
    assert NPM is not None
    return subprocess.run(
        [NPM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_checked_in_description_is_the_apis_own() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == render(default_spec()), (
        "web/src/api/openapi.json is stale: run `make web-schema` and commit the result"
    )


def test_the_generated_types_are_current() -> None:
    done = _npm("run", "--silent", "schema:check")
    assert done.returncode == 0, (
        "web/src/api/schema.ts is stale: run `make web-schema` and commit the result\n"
        + done.stdout
        + done.stderr
    )


@pytest.mark.early("web-test")
def test_the_client_typechecks_and_its_unit_tests_pass() -> None:
    _require_node_modules()
    done = early.result("web-test")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]


def test_a_schema_change_that_breaks_the_client_fails_the_typecheck(tmp_path: Path) -> None:
    """The chain works: a note's ``etag`` renamed in the description, the types made
    again from it, and ``tsc`` names the client code that reads it."""
    copy = tmp_path / "web"
    shutil.copytree(WEB / "src", copy / "src")
    shutil.copy(WEB / "tsconfig.json", copy / "tsconfig.json")
    shutil.copy(WEB / "package.json", copy / "package.json")
    (copy / "node_modules").symlink_to(WEB / "node_modules")
    spec = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    note = spec["components"]["schemas"]["Note"]
    note["properties"]["version"] = note["properties"].pop("etag")
    note["required"] = ["version" if r == "etag" else r for r in note["required"]]
    (copy / "src" / "api" / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    assert _npm("run", "--silent", "schema", cwd=copy).returncode == 0
    (copy / "test").mkdir()  # tsconfig includes it
    done = _npm("exec", "--", "tsc", "--noEmit", "-p", ".", cwd=copy)
    assert done.returncode != 0
    assert "src/sync.ts" in done.stdout and "etag" in done.stdout, done.stdout[-2000:]
