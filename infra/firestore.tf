# Firestore (Native mode): the system of record. Security rules come from
# ../firestore.rules (clients may touch only their own notes; the functions use
# IAM and are not subject to rules). Composite indexes support the
# queries in shared/footnote/adapters/firestore_store.py; firestore.indexes.json
# at the repository root declares the same indexes for the Firebase CLI and the
# tests check the two agree.

resource "google_firestore_database" "main" {
  project                           = var.project_id
  name                              = "(default)"
  location_id                       = var.firestore_location
  type                              = "FIRESTORE_NATIVE"
  concurrency_mode                  = "PESSIMISTIC" # the indexer's transactions read, then write
  app_engine_integration_mode       = "DISABLED"
  point_in_time_recovery_enablement = var.environment == "prod" ? "POINT_IN_TIME_RECOVERY_ENABLED" : "POINT_IN_TIME_RECOVERY_DISABLED"
  delete_protection_state           = var.deletion_protection || var.environment == "prod" ? "DELETE_PROTECTION_ENABLED" : "DELETE_PROTECTION_DISABLED"
  deletion_policy                   = "ABANDON" # `terraform destroy` never deletes users' notes

  depends_on = [google_project_service.enabled]
}

# GET /notes: where tenantId == uid, order by createdAt desc, __name__ desc.
# (Firestore appends __name__ in the direction of the last field.)
resource "google_firestore_index" "notes_by_tenant_created" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "notes"
  query_scope = "COLLECTION"

  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "createdAt"
    order      = "DESCENDING"
  }
}

# GET /notes/changes: a tenant's change entries in commit order (FirestoreNoteStore.note_changes).
resource "google_firestore_index" "note_changes_by_tenant_changed" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "noteChanges"
  query_scope = "COLLECTION"

  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "changedAt"
    order      = "ASCENDING"
  }
}

# GET /conversations/{id}/messages: where conversationId == id and tenantId == uid.
resource "google_firestore_index" "messages_by_conversation_tenant" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "messages"
  query_scope = "COLLECTION"

  fields {
    field_path = "conversationId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
}

# GET /conversations: where tenantId == uid, order by updatedAt desc, __name__ desc.
resource "google_firestore_index" "conversations_by_tenant_updated" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "conversations"
  query_scope = "COLLECTION"

  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "updatedAt"
    order      = "DESCENDING"
  }
}

# In-memory corpora patch from the change log: indexState where tenantId == uid and
# chunksChangedAt > the corpus's mark (FirestoreStore.notes_changed_since).
resource "google_firestore_index" "states_by_tenant_changed" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "indexState"
  query_scope = "COLLECTION"

  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "chunksChangedAt"
    order      = "ASCENDING"
  }
}

# Vector index on chunk embeddings with the tenant as pre-filter
# (find_nearest over noteChunks where tenantId == uid).
resource "google_firestore_index" "chunks_embedding_by_tenant" {
  project     = var.project_id
  database    = google_firestore_database.main.name
  collection  = "noteChunks"
  query_scope = "COLLECTION"

  fields {
    field_path = "tenantId"
    order      = "ASCENDING"
  }
  fields {
    field_path = "embedding"
    vector_config {
      dimension = var.embedding_dimension
      flat {}
    }
  }
}

# Large text fields are never filtered or sorted on: exempt them from
# single-field indexing (cheaper writes, no index-entry limits on long notes).
resource "google_firestore_field" "unindexed_text" {
  for_each = toset(["notes", "noteChunks", "messages"])

  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = each.value
  field      = "text"

  index_config {}
}

# BM25 term statistics for the sparse half of Vector Search
# (footnote.adapters.firestore_term_stats): the sketch counters (df.b0 … df.b16383
# per row document) and each note's term ids are only ever read by document id;
# indexing them would cost thousands of index entries per write and run into the
# 40,000-entries-per-document limit.
resource "google_firestore_field" "unindexed_term_stats" {
  for_each = {
    "termStats/df"           = { collection = "termStats", field = "df" }
    "termStatsNotes/termIds" = { collection = "termStatsNotes", field = "termIds" }
    "termStatsNotes/termDf"  = { collection = "termStatsNotes", field = "termDf" }
  }

  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = each.value.collection
  field      = each.value.field

  index_config {}
}

# Security rules for client SDKs, from the same file the emulator tests load.
resource "google_firebaserules_ruleset" "firestore" {
  project = var.project_id

  source {
    files {
      name    = "firestore.rules"
      content = file("${path.module}/../firestore.rules")
    }
  }

  depends_on = [google_firestore_database.main]
}

resource "google_firebaserules_release" "firestore" {
  project      = var.project_id
  name         = "cloud.firestore" # the release the (default) database enforces
  ruleset_name = "projects/${var.project_id}/rulesets/${google_firebaserules_ruleset.firestore.name}"

  lifecycle {
    replace_triggered_by = [google_firebaserules_ruleset.firestore]
  }
}

# Per-user quota counters (footnote.adapters.firestore_quota) carry the end of their
# window in expiresAt: Firestore's TTL deletes finished windows, so the collection
# does not grow with traffic.
resource "google_firestore_field" "quota_ttl" {
  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = "quotas"
  field      = "expiresAt"

  ttl_config {}
}

# Idempotency-Key records (footnote.adapters.firestore_idempotency) carry their end
# (24 h after the first request) in expiresAt: the API already ignores and purges an
# expired record when it reads one; the TTL deletes the ones nobody asks for again.
resource "google_firestore_field" "idempotency_ttl" {
  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = "idempotencyKeys"
  field      = "expiresAt"

  ttl_config {}
}

# Deletions in the change feed (noteChanges documents with deleted=true, written by
# footnote.adapters.firestore_notes) carry expiresAt = deletion + TOMBSTONE_RETENTION_DAYS;
# a sync token older than that (less a day) is refused with 410 by the API.
resource "google_firestore_field" "tombstone_ttl" {
  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = "noteChanges"
  field      = "expiresAt"

  ttl_config {}
}

# Upload sessions handed out by POST /uploads (footnote.services.imports), recorded so
# that account deletion can cancel them; Cloud Storage closes a session after a week,
# and expiresAt (a week after it was handed out) lets this policy delete the record.
resource "google_firestore_field" "upload_session_ttl" {
  project    = var.project_id
  database   = google_firestore_database.main.name
  collection = "uploadSessions"
  field      = "expiresAt"

  ttl_config {}
}
