"""scripts/package_functions.py builds self-contained, deterministic source folders."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
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
    sys.modules.setdefault("package_functions", module)
    spec.loader.exec_module(module)
    return module


def require_uv(pkg: ModuleType) -> str:
    """uv (dev extra) compiles and installs the locks: required in CI, else a skip."""
    try:
        return str(pkg._uv())
    except SystemExit:
        if os.environ.get("CI"):
            pytest.fail("uv is not installed (dev extra)")
        pytest.skip("uv is not installed")


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
def test_folder_contents(pkg: ModuleType, built: Path, name: str) -> None:
    folder = built / name
    assert (folder / "main.py").read_bytes() == (ROOT / "functions" / name / "main.py").read_bytes()
    assert (folder / "requirements.txt").read_bytes() == pkg.lock_path(name).read_bytes()
    assert (folder / "footnote" / "entrypoints.py").is_file()
    assert (folder / "footnote" / "wiring.py").is_file()
    for never in ("dev", "evaluation", "cli.py"):
        assert not (folder / "footnote" / never).exists(), f"{never} is not deployed"
    for excluded in pkg.FUNCTIONS[name].exclude:
        assert not (folder / "footnote" / excluded).exists(), f"{name} ships {excluded}"
    assert not list(folder.rglob("__pycache__"))
    assert sorted(p.name for p in folder.iterdir()) == ["footnote", "main.py", "requirements.txt"]


def test_each_function_ships_the_adapters_it_runs(built: Path) -> None:
    adapters = {
        name: {p.name for p in (built / name / "footnote" / "adapters").iterdir()}
        for name in FUNCTIONS
    }
    assert "firestore_events.py" in adapters["indexer"]
    assert "pubsub_queue.py" in adapters["reindexer"]
    assert {"firebase_auth.py", "vertex_ranker.py", "vertex_grounder.py"} <= adapters["api"]
    for worker in ("indexer", "reindexer"):
        assert "vertex_ranker.py" not in adapters[worker], "the indexers never rerank"
        assert "vertex_grounder.py" not in adapters[worker], "nor check answers"
        assert not (built / worker / "footnote" / "api").exists(), "the indexers serve no HTTP"


def _pins(text: str) -> dict[str, str]:
    lines = [line for line in text.splitlines() if line and not line.lstrip().startswith("#")]
    pins = {}
    for line in lines:
        name, sep, version = line.partition("==")
        assert sep and re.fullmatch(r"[A-Za-z0-9._-]+", name), f"not pinned with ==: {line!r}"
        assert re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), f"not an exact version: {line!r}"
        pins[name.lower().replace("_", "-")] = version
    return pins


@pytest.mark.parametrize("name", FUNCTIONS)
def test_requirements_are_fully_pinned(pkg: ModuleType, built: Path, name: str) -> None:
    pins = _pins((built / name / "requirements.txt").read_text())
    for direct in pkg.FUNCTIONS[name].requires:
        assert pkg.normalise(direct) in pins, f"{name}: {direct} is not in its lock"
    assert "protobuf" in pins and "grpcio" in pins, "transitive packages are pinned too"
    for heavy in ("torch", "sentence-transformers", "pytest", "checkov", "bm25s", "uv"):
        assert heavy not in pins, f"{heavy} must not be deployed"


def test_only_the_api_reranks_and_the_indexer_installs_no_firebase_sdk(built: Path) -> None:
    pins = {n: _pins((built / n / "requirements.txt").read_text()) for n in FUNCTIONS}
    assert {"google-cloud-discoveryengine", "firebase-admin"} <= pins["api"].keys()
    for worker in ("indexer", "reindexer"):
        assert "google-cloud-discoveryengine" not in pins[worker], "the indexers never rerank"
    assert "firebase-admin" not in pins["indexer"]
    # The re-indexer runs account deletion, which revokes and deletes the Auth user.
    assert "firebase-admin" in pins["reindexer"]
    assert "google-events" in pins["indexer"] and "google-events" not in pins["reindexer"]
    # The API publishes deletion and import jobs; the indexer publishes nothing.
    assert "google-cloud-pubsub" in pins["reindexer"] and "google-cloud-pubsub" in pins["api"]
    shared = set(pins["api"]) & set(pins["indexer"]) & set(pins["reindexer"])
    for dist in shared:  # one version of a package across functions, so they behave alike
        versions = {n: pins[n][dist] for n in FUNCTIONS}
        assert len(set(versions.values())) == 1, (
            f"{dist} differs across functions {versions}: "
            "python scripts/package_functions.py --lock --upgrade aligns them"
        )


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
