# Uploads: archives a user imports (POST /imports stores one sent in its body; the
# clients upload bigger ones straight here, through a resumable upload session the
# API creates for one object under users/{uid}/uploads/ - POST /uploads; storage.rules
# guards Firebase access should the bucket ever be linked to Firebase). Personal data: account
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
    # writes an archive sent in the body of POST /imports and creates the upload
    # sessions of POST /uploads (storage.objects.create; never deletes)
    api = "roles/storage.objectCreator"
    # reads uploads for import jobs and deletes users/{uid}/ with the account
    reindexer = "roles/storage.objectAdmin"
  }

  bucket = google_storage_bucket.uploads.name
  role   = each.value
  member = google_service_account.function[each.key].member
}

# The API also reads objects: an upload's metadata before POST /imports starts its job
# (a missing one is 404) and a finished export it streams to its owner
# (GET /exports/{id}/archive). storage.objects.get alone: no listing, no deleting.
resource "google_storage_bucket_iam_member" "uploads_api_read" {
  bucket = google_storage_bucket.uploads.name
  role   = "roles/storage.legacyObjectReader"
  member = google_service_account.function["api"].member
}
