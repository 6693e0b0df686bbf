# terraform plan -var-file=environments/prod.tfvars -var=project_id=YOUR_PROD_PROJECT
environment          = "prod"
region               = "us-central1"
firestore_location   = "nam5"
embedding_model      = "gemini-embedding-001"
embedding_dimension  = 768
generator            = "gemini"
classifier           = "gemini"
chat_model           = "gemini-2.5-flash"
vector_min_replicas  = 1
vector_max_replicas  = 3
api_min_instances    = 1
api_max_instances    = 20
worker_max_instances = 5
deletion_protection  = true
