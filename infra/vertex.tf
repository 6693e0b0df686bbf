# Vertex AI Vector Search: an index updated by streaming upserts (the indexer
# writes datapoints as notes change), a public index endpoint and the deployed
# index the API queries. Dimension and distance follow the embedding settings.
#
# Hybrid: every datapoint carries the dense embedding (`dimensions` below) and a
# sparse BM25 embedding (`sparse_embedding`, footnote.retrieval.sparse). The sparse
# part needs no index configuration: its dimensions are 63-bit term ids and its
# distance is always the dot product. The dense distance must make `distance` the
# cosine (DOT_PRODUCT over UNIT_L2_NORM), which the retriever's z-score fusion and
# gating read; tests/infra/test_agreement.py checks both halves against the code.

resource "google_vertex_ai_index" "chunks" {
  display_name        = "footnote-chunks"
  description         = "Chunk embeddings of every note; each datapoint restricted to its tenant."
  region              = var.region
  index_update_method = "STREAM_UPDATE"

  metadata {
    # No contents_delta_uri: the index starts empty and is filled by stream upserts.
    config {
      dimensions                  = var.embedding_dimension
      approximate_neighbors_count = 100
      distance_measure_type       = var.vector_distance
      feature_norm_type           = var.vector_distance == "DOT_PRODUCT_DISTANCE" ? "UNIT_L2_NORM" : "NONE"
      shard_size                  = "SHARD_SIZE_SMALL"

      algorithm_config {
        tree_ah_config {
          leaf_node_embedding_count    = 1000
          leaf_nodes_to_search_percent = 10
        }
      }
    }
  }

  depends_on = [google_project_service.enabled]
}

resource "google_vertex_ai_index_endpoint" "chunks" {
  #checkov:skip=CKV2_GCP_34:A private endpoint needs a VPC with peering or Private Service Connect and a connector on every function; the public endpoint still requires IAM (aiplatform.user) on every query.
  display_name            = "footnote-chunks"
  description             = "Serves nearest-neighbour queries over note chunks."
  region                  = var.region
  public_endpoint_enabled = true # no VPC needed; calls are authorised by IAM

  depends_on = [google_project_service.enabled]
}

resource "google_vertex_ai_index_endpoint_deployed_index" "chunks" {
  index_endpoint    = google_vertex_ai_index_endpoint.chunks.id
  index             = google_vertex_ai_index.chunks.id
  deployed_index_id = "footnote_chunks_${var.environment}"
  display_name      = "footnote-chunks-${var.environment}"

  automatic_resources {
    min_replica_count = var.vector_min_replicas
    max_replica_count = var.vector_max_replicas
  }

  # Deploying an index takes 20-40 minutes.
  timeouts {
    create = "90m"
    update = "90m"
  }
}
