"""scripts/package_functions.py builds self-contained, deterministic source folders."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests.infra.tf import ROOT, Terraform

FUNCTIONS = ("api", "indexer", "reindexer")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "package_functions", ROOT / "scripts" / "package_functions.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pkg() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def built(pkg: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("functions")
    assert pkg.main(["--out", str(out)]) == 0
    return out


def test_one_folder_per_terraform_function(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == sorted(FUNCTIONS)
    assert set(Terraform.read().local_map("functions")) == set(FUNCTIONS)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_folder_contents(built: Path, name: str) -> None:
    folder = built / name
    assert (folder / "main.py").read_bytes() == (ROOT / "functions" / name / "main.py").read_bytes()
    assert (folder / "footnote" / "entrypoints.py").is_file()
    assert (folder / "footnote" / "adapters" / "firestore_events.py").is_file()
    assert not (folder / "footnote" / "dev").exists(), "the local stack is not deployed"
    assert not list(folder.rglob("__pycache__"))


def test_requirements_are_the_runtime_and_vertex_dependencies(built: Path) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = [
        line
        for line in (built / "api" / "requirements.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert lines == [*project["dependencies"], *project["optional-dependencies"]["vertex"]]
    text = "\n".join(lines)
    assert "functions-framework" in text
    for heavy in ("torch", "sentence-transformers", "pytest", "checkov"):
        assert heavy not in text, f"{heavy} must not be deployed"


def test_output_is_deterministic_and_tracks_changes(
    pkg: ModuleType, built: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    pkg.build("indexer", again)
    assert pkg.tree_hash(again / "indexer") == pkg.tree_hash(built / "indexer")
    (again / "indexer" / "footnote" / "config.py").write_text("# changed\n", encoding="utf-8")
    assert pkg.tree_hash(again / "indexer") != pkg.tree_hash(built / "indexer")
    modes = {oct(p.stat().st_mode & 0o777) for p in (built / "api").rglob("*") if p.is_file()}
    assert modes == {"0o644"}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_packaged_entry_point_imports_on_its_own(built: Path, name: str) -> None:
    """The folder is all a function gets: its main.py imports the packaged library."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = (
        "import main, footnote, sys; "
        "assert footnote.__file__.startswith(sys.argv[1]), footnote.__file__; "
        "print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(built / name)],
        cwd=built / name,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]
