"""The functions' pinned requirements are current: with pyproject.toml's ranges, with
the per-function table in scripts/package_functions.py, and with the runtime."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.infra.test_packaging import FUNCTIONS, _script, require_uv
from tests.infra.tf import INFRA, ROOT, Terraform, attr, blocks, tfvars


@pytest.fixture(scope="module")
def pkg() -> ModuleType:
    return _script()


def test_inputs_and_locks_are_current(pkg: ModuleType) -> None:
    """Offline and instant: the committed requirements.in is what the table and
    pyproject.toml give, and each lock records the hash of those inputs."""
    assert pkg.function_names() == sorted(FUNCTIONS) == sorted(pkg.FUNCTIONS)
    assert pkg.stale_locks() == [], "run: python scripts/package_functions.py --lock"


def test_a_changed_input_makes_the_lock_stale_and_the_build_refuses_it(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = pkg.FUNCTIONS["indexer"]
    monkeypatch.setitem(
        pkg.FUNCTIONS, "indexer", spec._replace(requires=(*spec.requires, "requests"))
    )
    assert pkg.stale_locks() == ["indexer"]
    with pytest.raises(SystemExit, match="out of date"):
        pkg.build("indexer", tmp_path)
    monkeypatch.setattr(pkg, "PYTHON_VERSION", "3.12")
    assert pkg.stale_locks() == sorted(FUNCTIONS), "the runtime's Python is an input too"


def test_every_runtime_dependency_is_deployed_or_explained(pkg: ModuleType) -> None:
    deployed = {pkg.normalise(d) for f in pkg.FUNCTIONS.values() for d in f.requires}
    runtime = set(pkg.runtime_dependencies())
    unexplained = runtime - deployed - set(pkg.NOT_DEPLOYED)
    assert not unexplained, f"add {sorted(unexplained)} to a function in FUNCTIONS or NOT_DEPLOYED"
    assert not deployed & set(pkg.NOT_DEPLOYED)
    assert set(pkg.NOT_DEPLOYED) <= runtime, "NOT_DEPLOYED names a dependency pyproject lacks"


def test_the_runtime_is_the_python_the_locks_are_compiled_for(pkg: ModuleType) -> None:
    tf = Terraform.read()
    runtime = "python" + pkg.PYTHON_VERSION.replace(".", "")
    assert tf.default("python_runtime") == runtime
    condition = attr(blocks(tf.variables["python_runtime"], "validation")[0], "condition")
    assert condition == f'${{var.python_runtime == "{runtime}"}}', condition
    for path in sorted((INFRA / "environments").glob("*.tfvars")):
        assert tfvars(path).get("python_runtime", runtime) == runtime, path.name


@pytest.mark.slow
def test_compiling_again_gives_the_committed_locks(pkg: ModuleType) -> None:
    """uv resolves each input again with the committed pins as preferences: the same
    file comes back, so a release upstream does not change CI, but a lock that no
    longer satisfies its ranges (or misses a package) does. Needs PyPI (~6 s)."""
    require_uv(pkg)
    try:
        problems = pkg.check_locks(sorted(FUNCTIONS), resolve=True)
    except subprocess.CalledProcessError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"uv pip compile failed (no PyPI here?): {exc}")
    assert not problems, "\n".join(problems)


def test_lock_inputs_are_committed_next_to_the_entry_points() -> None:
    for name in FUNCTIONS:
        folder = ROOT / "functions" / name
        assert {"main.py", "requirements.in", "requirements.txt"} <= {
            p.name for p in folder.iterdir()
        }


# -- Terraform's provider lock file -------------------------------------------------


def test_the_provider_lock_file_can_be_committed() -> None:
    """The deploy commits infra/.terraform.lock.hcl (README.md, Deploy, step 3):
    nothing may ignore it, or the pipeline's apply would always refuse."""
    result = subprocess.run(
        ["git", "check-ignore", "-q", "infra/.terraform.lock.hcl"], cwd=ROOT, check=False
    )
    assert result.returncode == 1, "infra/.terraform.lock.hcl is git-ignored"


def test_a_committed_provider_lock_file_matches_versions_tf() -> None:
    """Absent until the first deploy (no provider can be downloaded here); once
    committed, it must hold exactly the versions versions.tf pins, with checksums."""
    lock = INFRA / ".terraform.lock.hcl"
    if not lock.is_file():
        pytest.skip("no lock file yet: created by `terraform providers lock` on first deploy")
    text = lock.read_text()
    settings = Terraform.read().terraform[0]
    providers = blocks(settings, "required_providers")[0]
    assert providers, "versions.tf declares no providers"
    for spec in providers.values():
        spec = spec[0] if isinstance(spec, list) else spec
        source, version = attr(spec, "source"), attr(spec, "version")
        entry = re.search(
            rf'provider "registry.terraform.io/{re.escape(source)}" \{{(.*?)\n\}}', text, re.S
        )
        assert entry, f"{source} is missing from the lock file"
        assert re.search(rf'version\s+=\s+"{re.escape(version)}"', entry.group(1)), source
        assert '"h1:' in entry.group(1) and '"zh:' in entry.group(1), f"{source}: no hashes"
