# Uploads: archives a user imports (POST /imports stores one sent in its body; the
# web and mobile clients upload bigger ones straight here with the Firebase Storage
# SDK, under users/{uid}/, which storage.rules enforces). Personal data: account
# deletion's "files" step deletes users/{uid}/ (footnote.services.accounts); the
# lifecycle rule below only sweeps uploads an import has long finished with.
resource "google_storage_bucket" "uploads" {
  #checkov:skip=CKV_GCP_78:Versioning would keep a deleted user's uploads as noncurrent versions after account deletion; an upload is read once and never edited.
  #checkov:skip=CKV_GCP_62:Access logs of user uploads would copy their object names (user ids) into another bucket; Cloud Audit Logs (Data Access) can be enabled instead.
  name                        = "${var.project_id}-footnote-uploads"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  versioning {
    enabled = false # an upload is read once by its import job; no history to keep
  }

  # No soft delete: by default a bucket keeps a deleted object restorable for 7 days,
  # so a deleted account's uploads and exports would outlive the deletion job.
  soft_delete_policy {
    retention_duration_seconds = 0
  }

  lifecycle_rule {
    condition {
      age            = var.upload_retention_days
      matches_prefix = ["users/"]
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.enabled]
}

# The API writes uploads sent in a request body; the worker reads them for the
# import job and deletes a user's files with the account.
resource "google_storage_bucket_iam_member" "uploads" {
  for_each = {
    # writes an archive sent in the body of POST /imports (never reads or deletes)
    api = "roles/storage.objectCreator"
    # reads uploads for import jobs and deletes users/{uid}/ with the account
    reindexer = "roles/storage.objectAdmin"
  }

  bucket = google_storage_bucket.uploads.name
  role   = each.value
  member = google_service_account.function[each.key].member
}
