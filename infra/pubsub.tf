# Re-index requests: a topic, a push subscription to the re-indexer with retry
# and a dead-letter policy, and a dead-letter topic whose messages are kept in
# a pull subscription for inspection and replay.
#
# The push subscription is declared here (rather than letting Cloud Functions
# create an Eventarc-managed one) so that its dead-letter policy is under
# Terraform's control; the local stack (footnote.dev.stack) builds the same shape.

locals {
  dead_letter_topic = "${var.reindex_topic}-dead-letter"
  pubsub_agent      = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"
}

resource "google_pubsub_topic" "reindex" {
  #checkov:skip=CKV_GCP_83:Messages carry only note/tenant ids and a cursor, never note text; Google-managed encryption at rest is sufficient.
  name                       = var.reindex_topic
  message_retention_duration = "86400s"

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_topic" "reindex_dead_letter" {
  #checkov:skip=CKV_GCP_83:Dead-lettered re-index requests carry only ids and a cursor; Google-managed encryption at rest is sufficient.
  name                       = local.dead_letter_topic
  message_retention_duration = "604800s"

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_subscription" "reindex_push" {
  name                 = "${var.reindex_topic}-push"
  topic                = google_pubsub_topic.reindex.id
  ack_deadline_seconds = 600 # a page of REINDEX_PAGE_SIZE notes is embedded before the ack

  push_config {
    push_endpoint = google_cloudfunctions2_function.reindexer.service_config[0].uri
    oidc_token {
      service_account_email = google_service_account.trigger.email
      audience              = google_cloudfunctions2_function.reindexer.service_config[0].uri
    }
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.reindex_dead_letter.id
    max_delivery_attempts = var.reindex_max_delivery_attempts
  }

  expiration_policy {
    ttl = "" # never expires, even when idle
  }

  depends_on = [time_sleep.agents_ready] # pushes and dead-letters as the Pub/Sub agent
}

resource "google_pubsub_subscription" "reindex_dead_letter" {
  name                       = "${local.dead_letter_topic}-sub"
  topic                      = google_pubsub_topic.reindex_dead_letter.id
  ack_deadline_seconds       = 60
  message_retention_duration = "604800s"

  expiration_policy {
    ttl = ""
  }
}

# Dead-lettering is done by the Pub/Sub service agent: it must be able to
# publish to the dead-letter topic ...
resource "google_pubsub_topic_iam_member" "dead_letter_publisher" {
  topic  = google_pubsub_topic.reindex_dead_letter.id
  role   = "roles/pubsub.publisher"
  member = local.pubsub_agent
}

# ... and to acknowledge the message it forwarded on the source subscription.
resource "google_pubsub_subscription_iam_member" "dead_letter_subscriber" {
  subscription = google_pubsub_subscription.reindex_push.id
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
}

# Account jobs (DELETE /account): their own topic, pushed to the same worker function
# (footnote.entrypoints dispatches on the message's "job"), with its own dead-letter
# topic, kept for replay, and an alert when a deletion keeps failing. Messages carry
# the user id and the job id: kept 1 day (7 when dead-lettered), never note text.

resource "google_pubsub_topic" "accounts" {
  #checkov:skip=CKV_GCP_83:Messages carry only a user id and a job id, never note text; Google-managed encryption at rest is sufficient.
  name                       = var.accounts_topic
  message_retention_duration = "86400s"

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_topic" "accounts_dead_letter" {
  #checkov:skip=CKV_GCP_83:Dead-lettered account jobs carry only a user id and a job id; Google-managed encryption at rest is sufficient.
  name                       = "${var.accounts_topic}-dead-letter"
  message_retention_duration = "604800s"

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_subscription" "accounts_push" {
  name                 = "${var.accounts_topic}-push"
  topic                = google_pubsub_topic.accounts.id
  ack_deadline_seconds = 600 # the deletion's grace wait and a time-boxed run of its steps

  push_config {
    push_endpoint = google_cloudfunctions2_function.reindexer.service_config[0].uri
    oidc_token {
      service_account_email = google_service_account.trigger.email
      audience              = google_cloudfunctions2_function.reindexer.service_config[0].uri
    }
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.accounts_dead_letter.id
    max_delivery_attempts = var.reindex_max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }

  depends_on = [time_sleep.agents_ready]
}

resource "google_pubsub_subscription" "accounts_dead_letter" {
  name                       = "${var.accounts_topic}-dead-letter-sub"
  topic                      = google_pubsub_topic.accounts_dead_letter.id
  ack_deadline_seconds       = 60
  message_retention_duration = "604800s"

  expiration_policy {
    ttl = ""
  }
}

# The Pub/Sub agent dead-letters account jobs (publish) and acks what it forwarded.
resource "google_pubsub_topic_iam_member" "accounts_dead_letter_publisher" {
  topic  = google_pubsub_topic.accounts_dead_letter.id
  role   = "roles/pubsub.publisher"
  member = local.pubsub_agent
}

# ... and acknowledges the forwarded message on the source subscription.
resource "google_pubsub_subscription_iam_member" "accounts_dead_letter_subscriber" {
  subscription = google_pubsub_subscription.accounts_push.id
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
}

# A deletion that keeps failing is a promise broken to a user: alert on any message
# waiting in the accounts dead-letter subscription.
resource "google_monitoring_alert_policy" "account_job_dead_lettered" {
  display_name          = "Footnote: an account deletion job was dead-lettered"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "messages in ${google_pubsub_subscription.accounts_dead_letter.name}"
    condition_threshold {
      filter          = "resource.type = \"pubsub_subscription\" AND resource.labels.subscription_id = \"${google_pubsub_subscription.accounts_dead_letter.name}\" AND metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "60s"
      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_MAX"
      }
    }
  }

  documentation {
    content = "An account deletion failed on every delivery. Read the worker's logs for the job id, fix the cause, then replay the message from the dead-letter subscription: the job resumes at its recorded step (docs/privacy.md)."
  }
}
