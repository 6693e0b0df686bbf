"""The deploy account in README.md, Deploy can manage every resource type Terraform
declares, and the plan-only account can read them.

The resource types are read from infra/*.tf, so a new type without a role here (and
in the README) fails: found by review, `plan` failed with 403 once the scheduler job
existed, because the deployer had no Cloud Scheduler role.
"""

from __future__ import annotations

import re

import pytest

from tests.infra.tf import INFRA, ROOT

# What Terraform needs to create, update and delete each resource type.
MANAGE = {
    "google_cloud_run_v2_service_iam_member": {"roles/run.admin"},
    "google_cloud_scheduler_job": {"roles/cloudscheduler.admin"},
    "google_cloudfunctions2_function": {
        "roles/cloudfunctions.admin",
        "roles/iam.serviceAccountUser",  # deploys functions that run as their own accounts
        "roles/eventarc.admin",  # the indexer's Firestore trigger
        "roles/run.admin",  # 2nd-gen functions are Cloud Run services
    },
    "google_firebaserules_release": {"roles/firebaserules.admin"},
    "google_firebaserules_ruleset": {"roles/firebaserules.admin"},
    "google_firestore_database": {"roles/datastore.owner"},
    "google_firestore_field": {"roles/datastore.owner"},
    "google_firestore_index": {"roles/datastore.owner"},
    "google_monitoring_alert_policy": {"roles/monitoring.alertPolicyEditor"},
    "google_project_iam_custom_role": {"roles/iam.roleAdmin"},
    "google_project_iam_member": {"roles/resourcemanager.projectIamAdmin"},
    "google_project_service": {"roles/serviceusage.serviceUsageAdmin"},
    "google_project_service_identity": {"roles/serviceusage.serviceUsageAdmin"},
    "google_pubsub_subscription": {"roles/pubsub.admin"},
    "google_pubsub_subscription_iam_member": {"roles/pubsub.admin"},
    "google_pubsub_topic": {"roles/pubsub.admin"},
    "google_pubsub_topic_iam_member": {"roles/pubsub.admin"},
    "google_service_account": {"roles/iam.serviceAccountAdmin"},
    "google_service_account_iam_member": {"roles/iam.serviceAccountAdmin"},
    "google_storage_bucket": {"roles/storage.admin"},
    "google_storage_bucket_object": {"roles/storage.admin"},
    "google_storage_bucket_iam_member": {"roles/storage.admin"},
    "google_vertex_ai_index": {"roles/aiplatform.admin"},
    "google_vertex_ai_index_endpoint": {"roles/aiplatform.admin"},
    "google_vertex_ai_index_endpoint_deployed_index": {"roles/aiplatform.admin"},
    "data.google_project": {"roles/resourcemanager.projectIamAdmin"},  # projects.get
    # local to Terraform: no API calls
    "time_sleep": set(),
    "data.archive_file": set(),
}
# What the pipeline itself does besides Terraform: Hosting deploys, build logs.
PIPELINE = {"roles/firebasehosting.admin", "roles/logging.logWriter"}


def declared_types() -> set[str]:
    text = "\n".join(p.read_text() for p in sorted(INFRA.glob("*.tf")))
    resources = set(re.findall(r'^resource\s+"([a-z0-9_]+)"', text, re.M))
    data = {f"data.{t}" for t in re.findall(r'^data\s+"([a-z0-9_]+)"', text, re.M)}
    return resources | data


def readme_roles(account: str) -> set[str]:
    """Roles in the README's `for role in ...; do` loop for SA=footnote-<account>."""
    readme = (ROOT / "README.md").read_text()
    match = re.search(rf"SA=footnote-{account}@.*?for role in (.*?); do", readme, re.S)
    assert match, f"README.md, Deploy: no role loop for footnote-{account}"
    return set(re.findall(r"roles/[A-Za-z.]+", match.group(1)))


def test_every_declared_resource_type_has_a_known_role() -> None:
    unknown = declared_types() - set(MANAGE)
    assert not unknown, (
        f"say which deployer role manages {sorted(unknown)} (here and in the README)"
    )


@pytest.mark.parametrize("rtype", sorted(declared_types()))
def test_the_deploy_account_can_manage_every_resource_type(rtype: str) -> None:
    missing = MANAGE.get(rtype, {"<unknown>"}) - readme_roles("deployer")
    assert not missing, f"{rtype} needs {sorted(missing)} on footnote-deployer"


def test_the_deploy_account_can_run_the_pipeline() -> None:
    assert readme_roles("deployer") >= PIPELINE


def test_the_plan_account_only_reads() -> None:
    roles = readme_roles("planner")
    assert roles, "a plan-only account for branch builds"
    writers = [r for r in roles if r.endswith(("admin", "Admin", ".owner", ".editor"))]
    assert not writers, f"the plan-only account must not write: {writers}"
    assert "roles/viewer" in roles and "roles/iam.securityReviewer" in roles
