"""cloudbuild.yaml: the stages the deploy needs, in order, and substitutions that resolve."""

from __future__ import annotations

import re
import subprocess
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


# -- pinned, verified, cached (issue 16: reproducible builds) ----------------------


def images(build: dict[str, Any]) -> set[str]:
    subs = build["substitutions"]
    out = set()
    for step in build["steps"]:
        name = re.sub(r"\$\{(\w+)\}", lambda m: subs.get(m.group(1), m.group(0)), step["name"])
        out.add(name)
    return out


def test_every_builder_image_is_pinned_by_digest_or_exact_version(build: dict[str, Any]) -> None:
    found = images(build)
    assert found, "no steps"
    for image in found:
        if "@sha256:" in image:
            assert re.search(r"@sha256:[0-9a-f]{64}$", image), image
            continue
        _, _, tag = image.rpartition(":")
        assert re.fullmatch(r"\d+\.\d+\.\d+(-[a-z0-9.]+)?", tag), (
            f"{image}: pin an exact version (x.y.z) or a digest, not a moving tag"
        )
    subs = build["substitutions"]
    assert subs["_TF_IMAGE"].endswith(":" + subs["_TF_VERSION"]), "one Terraform version"


def test_downloaded_tools_are_checked_against_published_checksums(build: dict[str, Any]) -> None:
    setup = script(steps(build)["setup"])
    downloads = re.findall(r"curl [^\n]*?-o \"?(/tmp/[^\s\"]+)", setup)
    archives = [d for d in downloads if not d.endswith((".sha256",))]
    assert len(archives) >= 2, downloads  # Node and Terraform
    assert setup.count("sha256sum -c") == len(archives), "verify every downloaded archive"
    for line in setup.splitlines():  # never run a script straight from the network
        assert not re.search(r"curl[^|]*\|\s*(ba)?sh", line), line


def test_pip_uv_and_npm_caches_survive_between_builds(build: dict[str, Any]) -> None:
    env = dict(e.split("=", 1) for e in build["options"]["env"])
    for var in ("PIP_CACHE_DIR", "UV_CACHE_DIR", "npm_config_cache"):
        assert env[var].startswith("/workspace/.cache/"), f"{var} must be in the cached folder"
    by_id = steps(build)
    restore, save = script(by_id["cache-restore"]), script(by_id["cache-save"])
    assert "cache-restore" in ancestors(build, "setup")
    assert {"setup", "unit-tests"} <= ancestors(build, "cache-save"), "save what the tests filled"
    for manifest in ("pyproject.toml", "package-lock.json", "functions/*/requirements.txt"):
        assert manifest in restore, f"the cache key must change with {manifest}"
    assert "gs://${_CACHE_BUCKET}" in restore and "gs://${_CACHE_BUCKET}" in save
    assert "tar -xzf" in restore and "-C /workspace/.cache" in restore
    assert "tar -czf" in save and "-C /workspace/.cache" in save
    # a missing archive (the first build) must not fail the build
    assert "2>/dev/null; then" in restore


def test_the_committed_provider_lock_file_is_required_to_apply(build: dict[str, Any]) -> None:
    by_id = steps(build)
    init, apply = script(by_id["terraform-init"]), script(by_id["terraform-apply"])
    assert "-lockfile=readonly" in init, "init must not rewrite the committed lock file"
    lock_check = init.index("infra/.terraform.lock.hcl")
    assert lock_check < init.index("terraform -chdir=infra init"), "check before init creates one"
    assert '"${BRANCH_NAME}" = "main"' in init and "exit 1" in init
    assert apply.index(".terraform.lock.hcl") < apply.index("terraform -chdir=infra apply")
    assert "/workspace/.no-lockfile" in init and "/workspace/.no-lockfile" in apply


def test_the_smoke_test_asks_chat_with_a_real_id_token(build: dict[str, Any]) -> None:
    smoke = script(steps(build)["smoke-test"])
    assert 'scripts/smoke_chat.py "$$api" "${_WEB_API_KEY}"' in smoke
    source = (ROOT / "scripts" / "smoke_chat.py").read_text()
    assert "identitytoolkit.googleapis.com" in source and ":signUp" in source, "a real user"
    assert '"Authorization", f"Bearer {token}"' in source
    assert "/chat" in source and "citations" in source


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_step_scripts_parse(build: dict[str, Any], shell: str) -> None:
    """Every inline script is valid shell once Cloud Build has substituted it."""
    parsed = 0
    for step in build["steps"]:
        args = [str(a) for a in step.get("args", [])]
        if step.get("entrypoint") != shell or not args:
            continue
        body = args[-1].replace("$$", "$")
        body = re.sub(r"\$\{(_?[A-Z_]+)\}", "x", body)
        result = subprocess.run([shell, "-n"], input=body, capture_output=True, text=True)
        assert result.returncode == 0, f"{step['id']}: {result.stderr}"
        parsed += 1
    assert parsed >= 2, f"no {shell} steps found"
