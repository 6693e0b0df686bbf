# Provider versions are pinned exactly. The lock file (.terraform.lock.hcl, with the
# providers' checksums for every platform used) is created once with
#   terraform providers lock -platform=linux_amd64 -platform=darwin_arm64
# and committed; the pipeline refuses to apply without it (docs/deploy.md).
terraform {
  required_version = ">= 1.6, < 2.0"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "6.49.0"
    }
    # google_project_service_identity (the Eventarc and Pub/Sub service agents) is beta-only
    google-beta = {
      source  = "hashicorp/google-beta"
      version = "6.49.0"
    }
    archive = {
      source  = "hashicorp/archive"
      version = "2.7.1"
    }
    # waits for IAM grants to the new service agents to propagate
    time = {
      source  = "hashicorp/time"
      version = "0.13.1"
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

  # With user credentials (a first apply from a laptop), the Firebase Rules and
  # Identity Toolkit APIs need a quota project: bill API quota to this project.
  user_project_override = true
  billing_project       = var.project_id

  default_labels = {
    app         = "footnote"
    environment = var.environment
  }
}

provider "google-beta" {
  project               = var.project_id
  region                = var.region
  user_project_override = true
  billing_project       = var.project_id
}
