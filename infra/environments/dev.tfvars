# terraform plan -var-file=environments/dev.tfvars -var=project_id=YOUR_DEV_PROJECT
environment          = "dev"
region               = "us-central1"
firestore_location   = "nam5"
embedding_model      = "gemini-embedding-001"
embedding_dimension  = 768
generator            = "gemini"
classifier           = "gemini"
chat_model           = "gemini-2.5-flash"
vector_min_replicas  = 1
vector_max_replicas  = 1
api_min_instances    = 0
api_max_instances    = 3
worker_max_instances = 2
deletion_protection  = false
