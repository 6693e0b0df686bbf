# Function sources. scripts/package_functions.py (`make package`) writes one
# folder per function under var.source_dir: its main.py, the shared `footnote`
# package and a requirements.txt. Each folder is zipped here and uploaded under
# a name that contains the archive's content hash, so any code change produces a
# new object, which changes the function's source and redeploys it.

locals {
  functions = {
    api       = { name = "footnote-api", entry_point = "api" }
    indexer   = { name = "footnote-indexer", entry_point = "index_note" }
    reindexer = { name = "footnote-reindexer", entry_point = "reindex" }
  }
}

resource "google_storage_bucket" "sources" {
  #checkov:skip=CKV_GCP_62:Holds only build artefacts (the functions' source code), never user data; public access is prevented and Cloud Audit Logs record admin access.
  name                        = "${var.project_id}-footnote-sources"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true # holds only build artefacts

  versioning {
    enabled = true
  }

  # Old archives are never read again once a newer one is deployed.
  lifecycle_rule {
    condition {
      age = 30
    }
    action {
      type = "Delete"
    }
  }

  # Versioning keeps what the rule above deletes as noncurrent versions: drop those
  # too, or the bucket grows forever.
  lifecycle_rule {
    condition {
      days_since_noncurrent_time = 7
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.enabled]
}

data "archive_file" "source" {
  for_each = local.functions

  type        = "zip"
  source_dir  = "${path.module}/${var.source_dir}/${each.key}"
  output_path = "${path.module}/.terraform/archives/${each.key}.zip"
  excludes    = ["**/__pycache__/**", "**/*.pyc"]
}

resource "google_storage_bucket_object" "source" {
  for_each = local.functions

  name   = "${each.key}/${data.archive_file.source[each.key].output_sha256}.zip"
  bucket = google_storage_bucket.sources.name
  source = data.archive_file.source[each.key].output_path
}
