output "api_url" {
  description = "HTTPS URL of the API function (GET $api_url/healthz)."
  value       = google_cloudfunctions2_function.api.service_config[0].uri
}

output "api_service" {
  description = "Cloud Run service behind the API; Firebase Hosting rewrites /api/** to it."
  value       = google_cloudfunctions2_function.api.service_config[0].service
}

output "vertex_index_id" {
  description = "Vertex AI Vector Search index (VERTEX_INDEX)."
  value       = google_vertex_ai_index.chunks.id
}

output "vertex_index_endpoint_id" {
  description = "Vertex AI index endpoint (VERTEX_INDEX_ENDPOINT)."
  value       = google_vertex_ai_index_endpoint.chunks.id
}

output "vertex_deployed_index_id" {
  description = "Deployed index id on the endpoint (VERTEX_DEPLOYED_INDEX_ID)."
  value       = google_vertex_ai_index_endpoint_deployed_index.chunks.deployed_index_id
}

output "vertex_public_endpoint_domain" {
  description = "Public domain of the index endpoint (VERTEX_PUBLIC_ENDPOINT_DOMAIN)."
  value       = google_vertex_ai_index_endpoint.chunks.public_endpoint_domain_name
}

output "reindex_topic" {
  description = "Publish {\"scope\": ...} here to re-index (footnote reindex ...)."
  value       = google_pubsub_topic.reindex.id
}

output "reindex_dead_letter_subscription" {
  description = "Re-index messages that kept failing end up here."
  value       = google_pubsub_subscription.reindex_dead_letter.id
}

output "source_bucket" {
  description = "Bucket holding the function source archives."
  value       = google_storage_bucket.sources.name
}
