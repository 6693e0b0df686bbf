# One service account per function, each with only the roles its code uses,
# plus one identity that Eventarc and Pub/Sub use to invoke the event-driven
# functions (so the functions themselves hold no invoker rights).

resource "google_service_account" "function" {
  for_each = local.functions

  account_id   = each.value.name
  display_name = "Footnote ${each.key} function"
  description  = "Runtime identity of the ${each.value.name} Cloud Function."

  depends_on = [google_project_service.enabled]
}

resource "google_service_account" "trigger" {
  account_id   = "footnote-trigger"
  display_name = "Footnote event delivery"
  description  = "Identity Eventarc (Firestore events) and Pub/Sub (re-index push) use to invoke the indexer and re-indexer."

  depends_on = [google_project_service.enabled]
}

# Vertex AI permissions, as custom roles instead of roles/aiplatform.user (which
# also lets a function create, delete and deploy any Vertex resource).
resource "google_project_iam_custom_role" "vertex_query" {
  role_id     = "footnoteVertexQuery"
  title       = "Footnote API: query the vector index and call models"
  description = "Embeds questions and calls Gemini (predict on publisher models) and queries the deployed Vector Search index."
  permissions = [
    "aiplatform.endpoints.predict",           # embedContent / generateContent on publisher models
    "aiplatform.indexEndpoints.get",          # resolves the deployed index's public domain
    "aiplatform.indexEndpoints.queryVectors", # findNeighbors on the deployed index
  ]

  depends_on = [google_project_service.enabled]
}

resource "google_project_iam_custom_role" "vertex_index_writer" {
  role_id     = "footnoteVertexIndexWriter"
  title       = "Footnote indexers: update the vector index and call models"
  description = "Embeds and classifies chunks (predict on publisher models) and upserts / removes datapoints of the Vector Search index."
  permissions = [
    "aiplatform.endpoints.predict", # embedContent / generateContent on publisher models
    "aiplatform.indexes.get",       # reads the index before streaming updates
    "aiplatform.indexes.update",    # upsertDatapoints / removeDatapoints
  ]

  depends_on = [google_project_service.enabled]
}

locals {
  # Project-level roles per function. There are no resource-level IAM bindings
  # for Firestore databases or Vertex AI endpoints, so these are the narrowest
  # roles that cover what each function does.
  function_roles = {
    # api: reads and writes notes, conversations, messages, quota counters; reads
    # chunks, tenants and the embedding cache (Firestore).
    "api/datastore" = { fn = "api", role = "roles/datastore.user" }
    # api: embeds the question, queries the deployed Vector Search index and
    # calls Gemini for the answer (custom role above).
    "api/vertex" = { fn = "api", role = google_project_iam_custom_role.vertex_query.id }
    # api: checks each cited sentence of an answer with the Check Grounding API
    # (discoveryengine.groundingConfigs.check, in Discovery Engine Viewer: read-only).
    "api/grounding" = { fn = "api", role = "roles/discoveryengine.viewer" }

    # indexer: reads the note, writes noteChunks, indexState, tenants and the
    # embedding cache in transactions (Firestore).
    "indexer/datastore" = { fn = "indexer", role = "roles/datastore.user" }
    # indexer: embeds chunks, classifies them with Gemini and upserts / removes
    # datapoints in the Vector Search index (custom role above).
    "indexer/vertex" = { fn = "indexer", role = google_project_iam_custom_role.vertex_index_writer.id }

    # reindexer: pages through notes and indexState, saves the job cursor in
    # reindexJobs and rewrites chunks as the indexer does (Firestore).
    "reindexer/datastore" = { fn = "reindexer", role = "roles/datastore.user" }
    # reindexer: the same embedding, classification and index upserts as the indexer.
    "reindexer/vertex" = { fn = "reindexer", role = google_project_iam_custom_role.vertex_index_writer.id }
    # reindexer, as the account-deletion worker: revokes the user's refresh tokens
    # and deletes the Firebase Auth user, the job's last step.
    "reindexer/auth" = { fn = "reindexer", role = "roles/firebaseauth.admin" }
    # api: DELETE /account reads the user's email to check the typed confirmation.
    "api/auth" = { fn = "api", role = "roles/firebaseauth.viewer" }
  }
}

resource "google_project_iam_member" "function" {
  for_each = local.function_roles

  project = var.project_id
  role    = each.value.role
  member  = google_service_account.function[each.value.fn].member
}

# reindexer: publishes the next page of a job to the re-index topic (and only that topic).
resource "google_pubsub_topic_iam_member" "reindexer_publishes_next_page" {
  topic  = google_pubsub_topic.reindex.id
  role   = "roles/pubsub.publisher"
  member = google_service_account.function["reindexer"].member
}

# api: DELETE /account publishes the deletion job; the worker publishes its
# continuation when a run is out of time. Only the accounts topic.
resource "google_pubsub_topic_iam_member" "account_jobs_publishers" {
  for_each = toset(["api", "reindexer"])

  topic = google_pubsub_topic.accounts.id
  # publish deletion jobs (api) and their continuations (reindexer), nothing else
  role   = "roles/pubsub.publisher"
  member = google_service_account.function[each.key].member
}

# trigger: receives Firestore events from Eventarc (required of a trigger's identity).
resource "google_project_iam_member" "trigger_event_receiver" {
  project = var.project_id
  role    = "roles/eventarc.eventReceiver"
  member  = google_service_account.trigger.member
}

# trigger: invokes the indexer's Cloud Run service with Firestore events.
resource "google_cloud_run_v2_service_iam_member" "trigger_invokes_indexer" {
  project  = var.project_id
  location = google_cloudfunctions2_function.indexer.location
  name     = google_cloudfunctions2_function.indexer.name # a 2nd-gen function's Cloud Run service has its name
  role     = "roles/run.invoker"
  member   = google_service_account.trigger.member
}

# trigger: invokes the re-indexer's Cloud Run service from the push subscription.
resource "google_cloud_run_v2_service_iam_member" "trigger_invokes_reindexer" {
  project  = var.project_id
  location = google_cloudfunctions2_function.reindexer.location
  name     = google_cloudfunctions2_function.reindexer.name # a 2nd-gen function's Cloud Run service has its name
  role     = "roles/run.invoker"
  member   = google_service_account.trigger.member
}

# The Pub/Sub service agent mints the push subscription's OIDC tokens as the
# trigger identity (needed for projects created before April 2021; harmless after).
resource "google_service_account_iam_member" "pubsub_mints_trigger_tokens" {
  service_account_id = google_service_account.trigger.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_agent
}

# api: anyone may reach the API over HTTPS; every route but /healthz verifies a
# Firebase ID token itself, and Firebase Hosting's rewrite needs public invocation.
resource "google_cloud_run_v2_service_iam_member" "api_public" {
  project  = var.project_id
  location = google_cloudfunctions2_function.api.location
  name     = google_cloudfunctions2_function.api.name # a 2nd-gen function's Cloud Run service has its name
  role     = "roles/run.invoker"
  member   = "allUsers"
}

# Cloud Build builds the function images as this identity instead of the Compute
# Engine default service account (which new projects no longer grant Editor).
resource "google_service_account" "build" {
  account_id   = "footnote-build"
  display_name = "Footnote function builds"
  description  = "Identity Cloud Build uses to build the Footnote functions' images."

  depends_on = [google_project_service.enabled]
}

# build: what Google documents for a custom Cloud Functions build account
# (https://cloud.google.com/functions/docs/securing/build-custom-sa).
locals {
  build_roles = {
    # the documented role: writes build logs, pushes the image to gcf-artifacts and
    # reads / writes the staged source in the gcf-v2-sources-* bucket
    builder = "roles/cloudbuild.builds.builder"
  }
}

resource "google_project_iam_member" "build" {
  #checkov:skip=CKV_GCP_49:roles/cloudbuild.builds.builder is the role Google documents for a custom Cloud Functions build account; only the build identity holds it.
  for_each = local.build_roles

  project = var.project_id
  role    = each.value
  member  = google_service_account.build.member
}

# New projects create the Eventarc and Pub/Sub service agents lazily, a few minutes
# after the API is enabled; the first trigger or push subscription then fails. Create
# them up front, grant Eventarc's agent its role, and wait for IAM to propagate, so
# one `terraform apply` is enough (as terraform-genai-knowledge-base does).
resource "google_project_service_identity" "agent" {
  provider = google-beta
  for_each = toset(["eventarc.googleapis.com", "pubsub.googleapis.com"])

  project = var.project_id
  service = each.value

  depends_on = [google_project_service.enabled]
}

# eventarc agent: reads Firestore event sources and manages the trigger's subscription.
resource "google_project_iam_member" "eventarc_agent" {
  #checkov:skip=CKV_GCP_49:roles/eventarc.serviceAgent is the Google-managed Eventarc service agent's own role, granted to that agent only.
  project = var.project_id
  role    = "roles/eventarc.serviceAgent"
  member  = "serviceAccount:${google_project_service_identity.agent["eventarc.googleapis.com"].email}"
}

resource "time_sleep" "agents_ready" {
  create_duration = "90s"

  depends_on = [
    google_project_iam_member.eventarc_agent,
    google_project_service_identity.agent,
  ]
}
