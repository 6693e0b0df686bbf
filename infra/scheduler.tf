# The safety net behind the Firestore trigger: every sweep_schedule, publish
# {"scope": "unindexed"} so the re-indexer picks up every note whose indexing
# never finished (Eventarc retries exhausted, a deploy mid-event, a poison
# note that was fixed since). Idempotent: an indexed note is not touched.
resource "google_cloud_scheduler_job" "sweep_unindexed" {
  count = var.sweep_schedule == "" ? 0 : 1

  name        = "footnote-sweep-unindexed"
  description = "Re-index every pending or failed note"
  region      = var.region
  schedule    = var.sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.reindex.id
    data       = base64encode(jsonencode({ scope = "unindexed" }))
  }

  depends_on = [google_project_service.enabled]
}
