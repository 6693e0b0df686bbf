"""cloudbuild.yaml: the stages the deploy needs, in order, and substitutions that resolve."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.infra.tf import INFRA, ROOT

BUILTIN = {
    "PROJECT_ID",
    "PROJECT_NUMBER",
    "BUILD_ID",
    "LOCATION",
    "BRANCH_NAME",
    "TAG_NAME",
    "COMMIT_SHA",
    "SHORT_SHA",
    "REVISION_ID",
    "REPO_NAME",
    "REPO_FULL_NAME",
    "TRIGGER_NAME",
    "SERVICE_ACCOUNT_EMAIL",
    "SERVICE_ACCOUNT",
}


@pytest.fixture(scope="module")
def build() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "cloudbuild.yaml").read_text())  # type: ignore[no-any-return]


def steps(build: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in build["steps"]}


def script(step: dict[str, Any]) -> str:
    return " ".join(str(a) for a in step.get("args", []))


def ancestors(build: dict[str, Any], step_id: str) -> set[str]:
    """Steps that finish before step_id starts (Cloud Build's waitFor semantics)."""
    order = [s["id"] for s in build["steps"]]
    by_id = steps(build)
    wait = by_id[step_id].get("waitFor")
    if wait == ["-"]:
        return set()
    direct = set(wait) if wait else set(order[: order.index(step_id)])
    out = set(direct)
    for d in direct:
        out |= ancestors(build, d)
    return out


def test_the_pipeline_has_every_stage(build: dict[str, Any]) -> None:
    by_id = steps(build)
    assert "ruff check" in script(by_id["lint"]) and "ruff format --check" in script(by_id["lint"])
    assert "mypy" in script(by_id["typecheck"])
    assert 'pytest -q -m "not emulator"' in script(by_id["unit-tests"])
    assert "pytest -q -m emulator" in script(by_id["emulator-tests"])
    assert "scripts/package_functions.py" in script(by_id["package"])
    assert "plan" in by_id["terraform-plan"]["args"]
    assert "terraform -chdir=infra apply" in script(by_id["terraform-apply"])
    assert "/healthz" in script(by_id["smoke-test"])


def test_stages_run_in_order(build: dict[str, Any]) -> None:
    assert {"lint", "typecheck", "unit-tests"} <= ancestors(build, "emulator-tests")
    assert {"emulator-tests", "terraform-fmt"} <= ancestors(build, "package")
    assert "package" in ancestors(build, "terraform-plan")
    assert "terraform-plan" in ancestors(build, "terraform-apply")
    assert "terraform-apply" in ancestors(build, "smoke-test")


@pytest.mark.parametrize("step_id", ["terraform-apply", "hosting-deploy", "smoke-test"])
def test_only_main_deploys(build: dict[str, Any], step_id: str) -> None:
    assert 'if [ "${BRANCH_NAME}" != "main" ]' in script(steps(build)[step_id])


def test_plan_uses_an_existing_tfvars_file(build: dict[str, Any]) -> None:
    args = steps(build)["terraform-plan"]["args"]
    assert "-var-file=environments/${_ENV}.tfvars" in args
    assert (INFRA / "environments" / f"{build['substitutions']['_ENV']}.tfvars").is_file()
    assert "-var=project_id=${PROJECT_ID}" in args


def test_every_substitution_is_defined(build: dict[str, Any]) -> None:
    """Cloud Build replaces $NAME and ${NAME}; shell variables must be written $$name."""
    text = (ROOT / "cloudbuild.yaml").read_text()
    text = re.sub(r"#.*", "", text).replace("$$", "")
    used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    unknown = used - BUILTIN - set(build["substitutions"])
    assert not unknown, f"undefined substitutions (escape shell variables as $$name): {unknown}"
