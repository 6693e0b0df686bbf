# Provider versions are pinned to a range; `terraform init` writes the exact
# versions to .terraform.lock.hcl, which should be committed after the first init.
terraform {
  required_version = ">= 1.6, < 2.0"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.30, < 7.0"
    }
    archive = {
      source  = "hashicorp/archive"
      version = ">= 2.4, < 3.0"
    }
  }

  # Remote state in a Cloud Storage bucket (versioned, one per project). The
  # bucket and prefix are given at init time, so the same code serves dev and prod:
  #   terraform init -backend-config=environments/dev.backend.hcl
  # See README.md, Deploy for creating the bucket.
  backend "gcs" {}
}

provider "google" {
  project = var.project_id
  region  = var.region

  default_labels = {
    app         = "footnote"
    environment = var.environment
  }
}
