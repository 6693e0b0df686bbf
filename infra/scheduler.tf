# The safety net behind the Firestore trigger: every sweep_schedule, publish
# {"scope": "unindexed"} so the re-indexer picks up every note whose indexing
# never finished (Eventarc retries exhausted, a deploy mid-event, a poison
# note that was fixed since). Idempotent: an indexed note is not touched.
resource "google_cloud_scheduler_job" "sweep_unindexed" {
  count = var.sweep_schedule == "" ? 0 : 1

  name        = "footnote-sweep-unindexed"
  description = "Re-index every pending or failed note"
  region      = var.region
  schedule    = var.sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.reindex.id
    data       = base64encode(jsonencode({ scope = "unindexed" }))
  }

  depends_on = [google_project_service.enabled]
}

# Accounts deleted outside the app (the Firebase console, the Admin SDK) leave their
# data behind: every orphan_sweep_schedule, publish {"job": "sweepAccounts"} on the
# accounts topic; the worker starts the deletion job of every tenant whose Auth user
# is gone (footnote.services.accounts.AccountService.sweep).
resource "google_cloud_scheduler_job" "sweep_orphaned_accounts" {
  count = var.orphan_sweep_schedule == "" ? 0 : 1

  name        = "footnote-sweep-orphaned-accounts"
  description = "Delete the data of tenants whose Firebase Auth user no longer exists"
  region      = var.region
  schedule    = var.orphan_sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.accounts.id
    data       = base64encode(jsonencode({ job = "sweepAccounts" }))
  }

  depends_on = [google_project_service.enabled]
}

# Imports and exports whose worker died (an instance killed mid-run) and whose message
# went with it: every sweep_schedule, publish {"job": "sweepJobs"} on the accounts
# topic; the worker publishes again the message of every unfinished import not saved
# for a lease (footnote.services.imports.ImportService.resume_stalled), which resumes
# it at its cursor, and of every export no run began for a lease (ExportService's
# resume_stalled), which writes it again; jobs whose runs keep dying end failed.
resource "google_cloud_scheduler_job" "resume_stalled_imports" {
  count = var.sweep_schedule == "" ? 0 : 1

  name        = "footnote-resume-stalled-imports"
  description = "Resume (or fail) every import and export whose worker died"
  region      = var.region
  schedule    = var.sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.accounts.id
    data       = base64encode(jsonencode({ job = "sweepJobs" }))
  }

  depends_on = [google_project_service.enabled]
}
