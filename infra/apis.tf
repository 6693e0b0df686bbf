# The APIs Footnote uses. disable_on_destroy = false: destroying Footnote must not
# switch off APIs that other workloads in the project may depend on.
locals {
  services = toset([
    "aiplatform.googleapis.com",           # Vertex AI: embeddings, Gemini, Vector Search
    "artifactregistry.googleapis.com",     # Cloud Functions stores built images here
    "cloudbuild.googleapis.com",           # builds the function sources
    "cloudfunctions.googleapis.com",       # the three functions
    "cloudresourcemanager.googleapis.com", # project IAM bindings (google_project_iam_member)
    "cloudscheduler.googleapis.com",       # the periodic sweep of unindexed notes
    "discoveryengine.googleapis.com",      # Check Grounding: each cited sentence's support
    "eventarc.googleapis.com",             # Firestore → indexer trigger
    "firebase.googleapis.com",             # Firebase Auth ID tokens, Hosting
    "firebaserules.googleapis.com",        # Firestore security rules
    "firestore.googleapis.com",            # notes, chunks, conversations
    "iam.googleapis.com",                  # service accounts
    "identitytoolkit.googleapis.com",      # Firebase Auth
    "logging.googleapis.com",              # structured logs
    "monitoring.googleapis.com",           # the alert on dead-lettered account jobs
    "pubsub.googleapis.com",               # re-index topic and dead letters
    "run.googleapis.com",                  # 2nd-gen functions run on Cloud Run
    "storage.googleapis.com",              # function source archives
  ])
}

resource "google_project_service" "enabled" {
  for_each = local.services

  project            = var.project_id
  service            = each.value
  disable_on_destroy = false
}

data "google_project" "this" {
  project_id = var.project_id
}
