# The three 2nd-gen Cloud Functions. Every environment variable comes from a
# variable or a resource attribute; the tests in tests/infra check that each
# function gets every setting its code path needs in production.

locals {
  # Settings shared by every function: where the data lives and which backend
  # serves each port. Indexer, re-indexer and API must agree on the embedding
  # model and dimension, or queries would not match the indexed vectors.
  common_env = {
    GOOGLE_CLOUD_PROJECT          = data.google_project.this.project_id
    FIRESTORE_DATABASE            = google_firestore_database.main.name
    NOTE_STORE                    = "firestore"
    EMBEDDER                      = "vertex"
    EMBEDDING_MODEL               = var.embedding_model
    EMBEDDING_DIMENSION           = tostring(var.embedding_dimension)
    VERTEX_LOCATION               = google_vertex_ai_index.chunks.region
    VECTOR_INDEX                  = "vertex"
    VERTEX_INDEX                  = google_vertex_ai_index.chunks.id
    VERTEX_INDEX_ENDPOINT         = google_vertex_ai_index_endpoint.chunks.id
    VERTEX_DEPLOYED_INDEX_ID      = google_vertex_ai_index_endpoint_deployed_index.chunks.deployed_index_id
    VERTEX_PUBLIC_ENDPOINT_DOMAIN = google_vertex_ai_index_endpoint.chunks.public_endpoint_domain_name
    CHAT_MODEL                    = var.chat_model
  }

  # The classifier runs where notes are indexed.
  indexing_env = {
    CLASSIFIER = var.classifier
  }

  # The re-indexer publishes the next page of a job to the re-index topic.
  reindex_env = {
    REINDEX_QUEUE  = "pubsub"
    REINDEX_TOPIC  = google_pubsub_topic.reindex.name
    ACCOUNTS_TOPIC = google_pubsub_topic.accounts.name # a deletion continues itself
    BLOB_STORE     = "gcs"                             # import jobs read uploads
    BLOB_BUCKET    = google_storage_bucket.uploads.name
  }

  # The API answers with the generator, serves browsers from these origins and
  # enforces the per-user quotas (counters in Firestore, so they hold across instances).
  api_env = {
    GENERATOR               = var.generator
    GROUNDER                = var.grounder
    GROUNDING_THRESHOLD     = tostring(var.grounding_threshold)
    CORS_ORIGINS            = var.cors_origins
    QUOTA_CHAT_PER_MINUTE   = tostring(var.quota_chat_per_minute)
    QUOTA_SEARCH_PER_MINUTE = tostring(var.quota_search_per_minute)
    QUOTA_NOTES_PER_DAY     = tostring(var.quota_notes_per_day)
    QUOTA_STORED_CHARS      = tostring(var.quota_stored_chars)
    QUOTA_EXPORTS_PER_DAY   = tostring(var.quota_exports_per_day)
    QUOTA_UPLOADS_PER_DAY   = tostring(var.quota_uploads_per_day)
    APP_CHECK               = var.app_check
    ACCOUNTS_TOPIC          = google_pubsub_topic.accounts.name # DELETE /account starts a job
    BLOB_STORE              = "gcs"                             # POST /imports stores an archive sent in its body
    BLOB_BUCKET             = google_storage_bucket.uploads.name
  }

  # Only named locals inside merge(): tests/infra resolves these maps statically.
  function_env = {
    api       = merge(local.common_env, local.api_env)
    indexer   = merge(local.common_env, local.indexing_env)
    reindexer = merge(local.common_env, local.indexing_env, local.reindex_env)
  }
}

# Indexer: Firestore `document.v1.written` on notes/{noteId} (Eventarc) → chunks
# and vectors. Retried on failure: the handler raises to be retried and returns
# to acknowledge (footnote.entrypoints), and indexing is idempotent.
resource "google_cloudfunctions2_function" "indexer" {
  name        = local.functions.indexer.name
  location    = var.region
  description = "Indexes a note whenever it is created, changed or deleted."

  build_config {
    runtime         = var.python_runtime
    entry_point     = local.functions.indexer.entry_point
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source["indexer"].name
      }
    }
  }

  service_config {
    available_memory                 = var.function_memory
    available_cpu                    = "1"
    timeout_seconds                  = 300
    max_instance_count               = var.worker_max_instances
    max_instance_request_concurrency = 1
    ingress_settings                 = "ALLOW_INTERNAL_ONLY" # only Eventarc delivers here
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.function["indexer"].email
    environment_variables            = local.function_env.indexer
  }

  event_trigger {
    trigger_region        = google_firestore_database.main.location_id # must be the database's location
    event_type            = "google.cloud.firestore.document.v1.written"
    retry_policy          = "RETRY_POLICY_RETRY"
    service_account_email = google_service_account.trigger.email

    event_filters {
      attribute = "database"
      value     = google_firestore_database.main.name
    }
    event_filters {
      attribute = "document"
      value     = "notes/{noteId}"
      operator  = "match-path-pattern"
    }
  }

  depends_on = [
    google_project_iam_member.function,
    google_project_iam_member.trigger_event_receiver,
    google_project_iam_member.build,
    time_sleep.agents_ready, # the Eventarc trigger needs its service agent
  ]
}

# Re-indexer: invoked by the push subscription on the re-index topic
# (pubsub.tf), which owns retry and dead-lettering. The handler is a
# CloudEvent function; functions-framework turns the push body into a
# `google.cloud.pubsub.topic.v1.messagePublished` event.
resource "google_cloudfunctions2_function" "reindexer" {
  name        = local.functions.reindexer.name
  location    = var.region
  description = "Re-indexes a note, a tenant or everything, a page per message."

  build_config {
    runtime         = var.python_runtime
    entry_point     = local.functions.reindexer.entry_point
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source["reindexer"].name
      }
    }
  }

  service_config {
    available_memory                 = var.function_memory
    available_cpu                    = "1"
    timeout_seconds                  = 540 # under the subscription's 600 s ack deadline
    max_instance_count               = var.worker_max_instances
    max_instance_request_concurrency = 1
    ingress_settings                 = "ALLOW_INTERNAL_ONLY" # only Pub/Sub push delivers here
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.function["reindexer"].email
    environment_variables            = local.function_env.reindexer
  }

  depends_on = [
    google_project_iam_member.function,
    google_project_iam_member.build,
  ]
}

# API: HTTPS, public invocation; each request is authenticated by its Firebase
# ID token (footnote.adapters.firebase_auth).
resource "google_cloudfunctions2_function" "api" {
  #checkov:skip=CKV_GCP_124:The API is the public HTTPS entry point for mobile and web clients (and Firebase Hosting's rewrite); every route but /healthz verifies a Firebase ID token.
  name        = local.functions.api.name
  location    = var.region
  description = "Notes, cited chat, search and conversations over HTTPS."

  build_config {
    runtime         = var.python_runtime
    entry_point     = local.functions.api.entry_point
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source["api"].name
      }
    }
  }

  service_config {
    available_memory                 = var.function_memory
    available_cpu                    = "1"
    timeout_seconds                  = 60
    min_instance_count               = var.api_min_instances
    max_instance_count               = var.api_max_instances
    max_instance_request_concurrency = 8 # requests wait mostly on Firestore and Vertex AI
    ingress_settings                 = "ALLOW_ALL"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.function["api"].email
    environment_variables            = local.function_env.api
  }

  depends_on = [
    google_project_iam_member.function,
    google_project_iam_member.build,
  ]
}
