"""The layer rules of pyproject.toml's [tool.importlinter], checked on every test run
(CI runs `make test`): a wrong import fails the build, not a review."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import early

ROOT = Path(__file__).resolve().parents[2]
# mypy over the whole tree is the suite's longest CPU-bound check: it runs in the
# background from the start of the session (tests/early.py).
early.register(
    "mypy",
    [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
    cwd=ROOT,
    env={**os.environ, "MYPYPATH": str(ROOT / "shared")},
    timeout=600,
)
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(shared: Path) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} is missing: install the dev extra (import-linter)")
    env = {**os.environ, "PYTHONPATH": str(shared)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_import_contracts_hold() -> None:
    result = lint_imports(ROOT / "shared")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "wrong_import", "contract"),
    [
        ("services/notes.py", "from footnote.api import http", "Layers"),
        ("services/notes.py", "from footnote.adapters import memory_store", "wiring only"),
        ("retrieval/fusion.py", "from google.cloud import firestore", "only in adapters"),
        ("api/http.py", "import firebase_admin", "only in adapters"),
    ],
)
def test_a_wrong_import_breaks_a_contract(
    tmp_path: Path, module: str, wrong_import: str, contract: str
) -> None:
    """The contracts can fail: the same code with one wrong import added does."""
    copy = tmp_path / "shared" / "footnote"
    shutil.copytree(
        ROOT / "shared" / "footnote", copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{wrong_import}\n", encoding="utf-8")
    result = lint_imports(tmp_path / "shared")
    assert result.returncode != 0, result.stdout
    broken = [line for line in result.stdout.splitlines() if " BROKEN" in line]
    assert any(contract in line for line in broken), result.stdout


def test_function_mains_import_only_the_entry_points_and_config() -> None:
    """functions/*/main.py are not a package import-linter can see: checked here."""
    allowed = {"footnote.entrypoints", "footnote.config"}
    mains = sorted((ROOT / "functions").glob("*/main.py"))
    assert len(mains) == 3
    for main in mains:
        tree = ast.parse(main.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("footnote"):
                assert node.module in allowed, f"{main}: from {node.module} import …"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("footnote"), f"{main}: import {alias.name}"


@pytest.mark.slow
@pytest.mark.early("mypy")
def test_mypy_strict_passes_on_shared_and_functions_and_checks_the_tests() -> None:
    """[tool.mypy] is strict on shared/ and the functions' entry points (its relaxations
    each with a reason there) and checks the bodies of tests/ and benchmarks/ in the
    same run; CI runs `make test`, so a type error fails the build like a wrong import."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        mypy = tomllib.load(f)["tool"]["mypy"]
    scope = mypy["files"]
    assert {"shared/footnote", "functions", "tests", "benchmarks"} <= set(scope), scope
    relaxed = {m for o in mypy.get("overrides", []) for m in o["module"]}
    assert not {m for m in relaxed if m.startswith(("functions", "footnote"))}, relaxed
    result = early.result("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lint_and_format_pass() -> None:
    """`make lint`'s ruff half, in the test run CI makes: style drift fails the build."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.fail(f"{ruff} is missing: install the dev extra")
    folders = ["shared", "functions", "tests", "benchmarks", "scripts"]
    for args in (["check", *folders], ["format", "--check", *folders]):
        result = subprocess.run(
            [str(ruff), *args], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stdout + result.stderr
