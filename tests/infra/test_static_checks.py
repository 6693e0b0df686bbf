"""Offline checks of infra/: formatting, checkov, and the conventions the
Terraform follows (pinned providers, a remote backend, typed and validated
variables, commented IAM roles, no pasted ids)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.infra.tf import INFRA, ROOT, Terraform, attr, blocks, tfvars

TF_FILES = sorted(INFRA.glob("*.tf"))


def _tool(name: str) -> str | None:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


def _require(name: str) -> str:
    path = _tool(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed")
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture(scope="module")
def tf() -> Terraform:
    return Terraform.read()


# -- tools ------------------------------------------------------------------------


def test_terraform_fmt() -> None:
    terraform = _require("terraform")
    result = subprocess.run(
        [terraform, "fmt", "-check", "-recursive", "-diff", str(INFRA)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"run `terraform fmt -recursive infra`:\n{result.stdout}"


def test_checkov_passes() -> None:
    checkov = _require("checkov")
    result = subprocess.run(
        [
            checkov,
            "-d",
            str(INFRA),
            "--framework",
            "terraform",
            "--quiet",
            "--compact",
            "--skip-download",
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_NO_OUTPUT_TRUNCATION": "1"},
    )
    report = json.loads(result.stdout) if result.stdout.strip().startswith(("{", "[")) else {}
    reports = report if isinstance(report, list) else [report]
    failed = [c for r in reports for c in r.get("results", {}).get("failed_checks", [])]
    summary = [
        f"{c['check_id']} {c['resource']} ({c['file_path']}): {c['check_name']}" for c in failed
    ]
    assert result.returncode == 0 and not failed, "\n".join(summary) or result.stderr[-2000:]
    passed = sum(r.get("summary", {}).get("passed", 0) for r in reports)
    assert passed > 30, "checkov scanned suspiciously little"


SKIP = re.compile(r"#\s*checkov:skip=(CKV2?_[A-Z]+_\d+)(?::(.*))?$")


def test_every_checkov_skip_is_justified() -> None:
    skips = []
    for path in TF_FILES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = SKIP.search(line)
            if match:
                reason = (match.group(2) or "").strip()
                assert len(reason) >= 40, f"{path.name}:{number}: justify skipping {match.group(1)}"
                skips.append(match.group(1))
    assert skips, "expected the documented skips (public API, public index endpoint, ...)"


# -- conventions ------------------------------------------------------------------


def test_providers_are_pinned_and_state_is_remote(tf: Terraform) -> None:
    (settings,) = tf.terraform
    assert attr(settings, "required_version")
    providers = blocks(settings, "required_providers")[0]
    for name in ("google", "google-beta", "archive", "time"):
        spec = providers[name]
        spec = spec[0] if isinstance(spec, list) else spec
        version = spec["version"]
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} must be pinned exactly: {version}"
    google, beta = (providers[n] for n in ("google", "google-beta"))
    assert str(google).replace("hashicorp/google", "") == str(beta).replace(
        "hashicorp/google-beta", ""
    ), "google and google-beta move together"
    backend = blocks(settings, "backend")[0]
    assert "gcs" in backend, "state lives in a GCS backend (README.md, Deploy)"
    for env in ("dev", "prod"):
        hcl = (INFRA / "environments" / f"{env}.backend.hcl").read_text()
        assert "bucket" in hcl and f"footnote/{env}" in hcl


def test_variables_are_typed_described_and_validated(tf: Terraform) -> None:
    for name, body in tf.variables.items():
        assert attr(body, "type"), f"variable {name} has no type"
        assert attr(body, "description"), f"variable {name} has no description"
        if "bool" not in str(attr(body, "type")):
            assert blocks(body, "validation"), f"variable {name} has no validation"


@pytest.mark.parametrize(
    "path", sorted((INFRA / "environments").glob("*.tfvars")), ids=lambda p: p.name
)
def test_tfvars_set_only_declared_variables(tf: Terraform, path: Path) -> None:
    values = tfvars(path)
    assert set(values) <= set(tf.variables), set(values) - set(tf.variables)
    assert values["environment"] == path.stem
    assert "project_id" not in values, "the project id is given on the command line"


def test_outputs(tf: Terraform) -> None:
    for name in (
        "api_url",
        "vertex_index_id",
        "vertex_index_endpoint_id",
        "vertex_deployed_index_id",
        "reindex_topic",
    ):
        assert name in tf.outputs, f"output {name} is missing"
        assert attr(tf.outputs[name], "description")


ROLE = re.compile(r'"(roles/[\w.]+)"')


def test_every_iam_role_is_commented_with_why() -> None:
    """Each role appears right under a comment (in a map, or above its resource)."""
    for path in TF_FILES:
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            role = ROLE.search(line)
            if not role or line.strip().startswith("#"):
                continue
            j = number - 1
            while j >= 0 and lines[j].strip() and not lines[j].strip().startswith("#"):
                if "{" in lines[j] and "=" in lines[j] and "resource" not in lines[j]:
                    break  # the start of a map: the comment must be inside it, above the entry
                j -= 1
            assert j >= 0 and lines[j].strip().startswith("#"), (
                f"{path.name}:{number + 1}: say why {role.group(1)} is needed"
            )


def test_no_broad_roles() -> None:
    text = "\n".join(p.read_text() for p in TF_FILES)
    for role in (
        "roles/owner",
        "roles/editor",
        "roles/viewer",
        "roles/iam.serviceAccountUser",
        "roles/datastore.owner",
        "roles/aiplatform.admin",
        "roles/pubsub.admin",
        "roles/storage.admin",
        "roles/run.admin",
    ):
        assert f'"{role}"' not in text, f"{role} is broader than any function needs"


def test_no_pasted_ids() -> None:
    text = "\n".join(p.read_text() for p in TF_FILES)
    assert not re.search(r"projects/[a-z][a-z0-9-]+/", text.replace("projects/${", "")), (
        "resource names come from attributes, not pasted paths"
    )
    assert not re.search(r'"\d{6,}"', text), "numeric ids come from attributes"


def test_api_is_public_and_the_workers_are_not(tf: Terraform) -> None:
    binding = tf.resource("google_cloud_run_v2_service_iam_member", "api_public")
    assert attr(binding, "member") == "allUsers"
    assert "google_cloudfunctions2_function.api." in attr(binding, "name")
    for key in ("indexer", "reindexer"):
        service = blocks(tf.resource("google_cloudfunctions2_function", key), "service_config")[0]
        assert attr(service, "ingress_settings") == "ALLOW_INTERNAL_ONLY"
    public = [
        name
        for name, b in tf.resources.get("google_cloud_run_v2_service_iam_member", {}).items()
        if attr(b, "member") in ("allUsers", "allAuthenticatedUsers")
    ]
    assert public == ["api_public"]


def test_firebase_json_declares_emulators_rules_and_hosting() -> None:
    config = json.loads((ROOT / "firebase.json").read_text())
    for name in ("auth", "firestore", "pubsub", "hosting"):
        assert isinstance(config["emulators"][name]["port"], int)
    assert config["firestore"] == {"rules": "firestore.rules", "indexes": "firestore.indexes.json"}
    rules = (ROOT / "firestore.rules").read_text()
    assert "rules_version = '2'" in rules
    assert "match /{document=**}" in rules and "allow read, write: if false" in rules


def test_storage_rules_open_only_the_callers_own_folder_and_firebase_json_deploys_them() -> None:
    config = json.loads((ROOT / "firebase.json").read_text())
    assert config["storage"] == [{"target": "uploads", "rules": "storage.rules"}]
    rules = (ROOT / "storage.rules").read_text()
    assert "rules_version = '2'" in rules
    assert "match /users/{uid}/{allPaths=**}" in rules
    assert "request.auth.uid == uid" in rules
    # every allow names the caller's uid, but the closing catch-all that denies
    allows = [line.strip() for line in rules.splitlines() if line.strip().startswith("allow ")]
    assert allows[-1] == "allow read, write: if false;"
    assert all("request.auth.uid == uid" in line for line in allows[:-1]), allows
