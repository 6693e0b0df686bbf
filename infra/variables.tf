# Every input is typed and validated; dev and prod differ only by their tfvars
# (environments/dev.tfvars, environments/prod.tfvars).

variable "project_id" {
  type        = string
  description = "The Google Cloud project Footnote is deployed into."

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a Google Cloud project id: 6-30 lowercase letters, digits or hyphens, starting with a letter."
  }
}

variable "environment" {
  type        = string
  description = "Deployment stage; labels every resource and picks safety defaults."

  validation {
    condition     = contains(["dev", "prod"], var.environment)
    error_message = "environment must be \"dev\" or \"prod\"."
  }
}

variable "region" {
  type        = string
  description = "Region of the functions, the source bucket and Vertex AI."
  default     = "us-central1"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]{1,2}$", var.region))
    error_message = "region must be a Google Cloud region such as us-central1, europe-west10 or northamerica-northeast1."
  }
}

variable "firestore_location" {
  type        = string
  description = "Location of the Firestore database: a multi-region (nam5, eur3) or a region. The indexer's Eventarc trigger lives there too."
  default     = "nam5"

  validation {
    condition     = can(regex("^(nam5|nam7|eur3|[a-z]+-[a-z]+[0-9]{1,2})$", var.firestore_location))
    error_message = "firestore_location must be nam5, nam7, eur3 or a region such as us-central1."
  }
}

variable "python_runtime" {
  type        = string
  description = "Cloud Functions Python runtime. The functions' requirements.txt files are compiled for this Python (scripts/package_functions.py, PYTHON_VERSION)."
  default     = "python311"

  validation {
    condition     = var.python_runtime == "python311"
    error_message = "python_runtime must be python311: the pinned requirements are compiled for Python 3.11 (change PYTHON_VERSION in scripts/package_functions.py and run --lock first)."
  }
}

variable "source_dir" {
  type        = string
  description = "Folder written by scripts/package_functions.py: one sub-folder per function, relative to this directory."
  default     = "../build/functions"

  validation {
    condition     = length(trimspace(var.source_dir)) > 0 && !startswith(var.source_dir, "/")
    error_message = "source_dir must be a path relative to infra/ (run `make package` to create it)."
  }
}

# --- models -------------------------------------------------------------------

variable "embedding_model" {
  type        = string
  description = "Vertex AI embedding model (EMBEDDING_MODEL)."
  default     = "gemini-embedding-001"

  validation {
    condition     = length(trimspace(var.embedding_model)) > 0
    error_message = "embedding_model must not be empty."
  }
}

variable "embedding_dimension" {
  type        = number
  description = "Output dimension of the embeddings (EMBEDDING_DIMENSION); the Firestore and Vertex vector indexes are built with it."
  default     = 768

  validation {
    condition     = var.embedding_dimension >= 1 && var.embedding_dimension <= 2048 && floor(var.embedding_dimension) == var.embedding_dimension
    error_message = "embedding_dimension must be a whole number from 1 to 2048: a Firestore vector index takes at most 2048 dimensions (gemini-embedding-001 offers 128-3072)."
  }
}

variable "generator" {
  type        = string
  description = "Answer generator (GENERATOR): gemini on Vertex AI, or the offline quote generator."
  default     = "gemini"

  validation {
    condition     = contains(["gemini", "quote"], var.generator)
    error_message = "generator must be \"gemini\" or \"quote\"."
  }
}

variable "grounder" {
  type        = string
  description = "What checks each cited sentence (GROUNDER): the Vertex AI Check Grounding API, or the offline grounder."
  default     = "vertex"

  validation {
    condition     = contains(["vertex", "local"], var.grounder)
    error_message = "grounder must be \"vertex\" or \"local\"."
  }
}

variable "grounding_threshold" {
  type        = number
  description = "Check Grounding claim score at or above which a citation is kept (GROUNDING_THRESHOLD)."
  default     = 0.6

  validation {
    condition     = var.grounding_threshold >= 0 && var.grounding_threshold <= 1
    error_message = "grounding_threshold must be between 0 and 1."
  }
}

variable "classifier" {
  type        = string
  description = "Memory-type classifier (CLASSIFIER): gemini, or the offline rules."
  default     = "gemini"

  validation {
    condition     = contains(["gemini", "rules"], var.classifier)
    error_message = "classifier must be \"gemini\" or \"rules\"."
  }
}

variable "chat_model" {
  type        = string
  description = "Gemini model for answers and classification (CHAT_MODEL)."
  default     = "gemini-2.5-flash"

  validation {
    condition     = can(regex("^gemini-", var.chat_model))
    error_message = "chat_model must name a Gemini model, e.g. gemini-2.5-flash."
  }
}

# --- Vector Search ------------------------------------------------------------

variable "vector_distance" {
  type        = string
  description = "Distance of the Vertex AI index. DOT_PRODUCT_DISTANCE over unit-normalised vectors is cosine similarity, which the code ranks by."
  default     = "DOT_PRODUCT_DISTANCE"

  validation {
    condition     = contains(["DOT_PRODUCT_DISTANCE", "COSINE_DISTANCE"], var.vector_distance)
    error_message = "vector_distance must be DOT_PRODUCT_DISTANCE (with unit-L2 normalisation) or COSINE_DISTANCE: the code ranks by cosine similarity."
  }
}

variable "vector_min_replicas" {
  type        = number
  description = "Minimum replicas of the deployed index (billed per hour while deployed)."
  default     = 1

  validation {
    condition     = var.vector_min_replicas >= 1 && var.vector_min_replicas <= 10
    error_message = "vector_min_replicas must be between 1 and 10."
  }
}

variable "vector_max_replicas" {
  type        = number
  description = "Maximum replicas of the deployed index."
  default     = 2

  validation {
    condition     = var.vector_max_replicas >= 1 && var.vector_max_replicas <= 20
    error_message = "vector_max_replicas must be between 1 and 20."
  }
}

# --- Pub/Sub ------------------------------------------------------------------

variable "reindex_topic" {
  type        = string
  description = "Pub/Sub topic for re-index requests (REINDEX_TOPIC)."
  default     = "footnote-reindex"

  validation {
    condition     = can(regex("^[a-zA-Z][a-zA-Z0-9._~%+-]{2,254}$", var.reindex_topic)) && !startswith(var.reindex_topic, "goog")
    error_message = "reindex_topic must be a valid Pub/Sub topic id (3-255 characters, starting with a letter, not with \"goog\")."
  }
}

variable "accounts_topic" {
  type        = string
  description = "Pub/Sub topic for account jobs: deletion (ACCOUNTS_TOPIC)."
  default     = "footnote-accounts"

  validation {
    condition     = can(regex("^[a-zA-Z][a-zA-Z0-9._~%+-]{2,254}$", var.accounts_topic)) && !startswith(var.accounts_topic, "goog")
    error_message = "accounts_topic must be a valid Pub/Sub topic name."
  }
}

variable "alert_notification_channels" {
  type        = list(string)
  description = "Monitoring notification channel ids for alerts (a dead-lettered account deletion)."
  default     = []

  validation {
    condition     = alltrue([for c in var.alert_notification_channels : can(regex("^projects/[^/]+/notificationChannels/[^/]+$", c))])
    error_message = "alert_notification_channels must be projects/PROJECT/notificationChannels/ID names."
  }
}

variable "reindex_max_delivery_attempts" {
  type        = number
  description = "Deliveries of a re-index message before it is moved to the dead-letter topic."
  default     = 5

  validation {
    condition     = var.reindex_max_delivery_attempts >= 5 && var.reindex_max_delivery_attempts <= 100
    error_message = "reindex_max_delivery_attempts must be between 5 and 100 (Pub/Sub's limits)."
  }
}

# --- functions ----------------------------------------------------------------

variable "api_max_instances" {
  type        = number
  description = "Upper bound on API instances (a cost ceiling)."
  default     = 10

  validation {
    condition     = var.api_max_instances >= 1 && var.api_max_instances <= 1000
    error_message = "api_max_instances must be between 1 and 1000."
  }
}

variable "api_min_instances" {
  type        = number
  description = "Warm API instances (0 scales to zero; 1 avoids cold starts at a cost)."
  default     = 0

  validation {
    condition     = var.api_min_instances >= 0 && var.api_min_instances <= 10
    error_message = "api_min_instances must be between 0 and 10."
  }
}

variable "worker_max_instances" {
  type        = number
  description = "Upper bound on indexer and re-indexer instances (protects the embedding quota)."
  default     = 5

  validation {
    condition     = var.worker_max_instances >= 1 && var.worker_max_instances <= 100
    error_message = "worker_max_instances must be between 1 and 100."
  }
}

variable "function_memory" {
  type        = string
  description = "Memory of each function."
  default     = "1Gi"

  validation {
    condition     = contains(["512Mi", "1Gi", "2Gi", "4Gi"], var.function_memory)
    error_message = "function_memory must be one of 512Mi, 1Gi, 2Gi, 4Gi."
  }
}

variable "cors_origins" {
  type        = string
  description = "Comma-separated origins allowed to call the API from a browser (CORS_ORIGINS). Same-origin calls through Firebase Hosting need none."
  default     = ""

  validation {
    condition     = var.cors_origins == "" || alltrue([for o in split(",", var.cors_origins) : can(regex("^https?://[^,/ ]+$", trimspace(o)))])
    error_message = "cors_origins must be empty or a comma-separated list of origins like https://app.example.com (no \"*\" in a deployment)."
  }
}

variable "deletion_protection" {
  type        = bool
  description = "Protect the Firestore database from deletion (always on in prod)."
  default     = true
}

variable "sweep_schedule" {
  type        = string
  description = "Cron schedule (UTC) of the sweep that re-indexes every pending or failed note; empty disables it."
  default     = "*/15 * * * *"

  validation {
    condition     = var.sweep_schedule == "" || length(split(" ", var.sweep_schedule)) == 5
    error_message = "sweep_schedule must be a five-field cron expression or empty."
  }
}

variable "orphan_sweep_schedule" {
  type        = string
  description = "Cron schedule (UTC) of the sweep that deletes the data of tenants whose Auth user was deleted outside the app; empty disables it."
  default     = "17 3 * * *"

  validation {
    condition     = var.orphan_sweep_schedule == "" || length(split(" ", var.orphan_sweep_schedule)) == 5
    error_message = "orphan_sweep_schedule must be a five-field cron expression or empty."
  }
}

variable "upload_retention_days" {
  type        = number
  description = "Days an uploaded archive is kept after upload (its import reads it once, within minutes)."
  default     = 7

  validation {
    condition     = var.upload_retention_days >= 1
    error_message = "upload_retention_days must be at least 1."
  }
}

# --- per-user quotas (the API; footnote.services.quotas) -----------------------
# 0 turns a limit off. The defaults are the code's (tests/infra/test_agreement.py).

variable "quota_chat_per_minute" {
  type        = number
  description = "Requests per user per minute to /chat (QUOTA_CHAT_PER_MINUTE); 0 disables the limit."
  default     = 30

  validation {
    condition     = var.quota_chat_per_minute >= 0 && var.quota_chat_per_minute <= 10000 && floor(var.quota_chat_per_minute) == var.quota_chat_per_minute
    error_message = "quota_chat_per_minute must be a whole number from 0 (off) to 10000."
  }
}

variable "quota_search_per_minute" {
  type        = number
  description = "Requests per user per minute to /search (QUOTA_SEARCH_PER_MINUTE); 0 disables the limit."
  default     = 120

  validation {
    condition     = var.quota_search_per_minute >= 0 && var.quota_search_per_minute <= 10000 && floor(var.quota_search_per_minute) == var.quota_search_per_minute
    error_message = "quota_search_per_minute must be a whole number from 0 (off) to 10000."
  }
}

variable "quota_notes_per_day" {
  type        = number
  description = "Notes a user may create per day (QUOTA_NOTES_PER_DAY); 0 disables the limit."
  default     = 1000

  validation {
    condition     = var.quota_notes_per_day >= 0 && var.quota_notes_per_day <= 1000000 && floor(var.quota_notes_per_day) == var.quota_notes_per_day
    error_message = "quota_notes_per_day must be a whole number from 0 (off) to 1000000."
  }
}

variable "quota_stored_chars" {
  type        = number
  description = "Characters of note text a user may store in total (QUOTA_STORED_CHARS); 0 disables the limit."
  default     = 10000000

  validation {
    condition     = var.quota_stored_chars >= 0 && var.quota_stored_chars <= 1000000000 && floor(var.quota_stored_chars) == var.quota_stored_chars
    error_message = "quota_stored_chars must be a whole number from 0 (off) to 1000000000 (one billion)."
  }
}

variable "quota_exports_per_day" {
  type        = number
  description = "Exports a user may start per UTC day (QUOTA_EXPORTS_PER_DAY); 0 disables the limit."
  default     = 5

  validation {
    condition     = var.quota_exports_per_day >= 0 && var.quota_exports_per_day <= 1000 && floor(var.quota_exports_per_day) == var.quota_exports_per_day
    error_message = "quota_exports_per_day must be a whole number from 0 (off) to 1000."
  }
}

variable "quota_uploads_per_day" {
  type        = number
  description = "Upload sessions (POST /uploads) a user may open per UTC day (QUOTA_UPLOADS_PER_DAY); 0 disables the limit."
  default     = 20

  validation {
    condition     = var.quota_uploads_per_day >= 0 && var.quota_uploads_per_day <= 1000 && floor(var.quota_uploads_per_day) == var.quota_uploads_per_day
    error_message = "quota_uploads_per_day must be a whole number from 0 (off) to 1000."
  }
}

variable "app_check" {
  type        = string
  description = "Firebase App Check on the API (APP_CHECK): \"enforce\" refuses requests without a valid X-Firebase-AppCheck token. Turn it on once the web client sends tokens (docs/deploy.md)."
  default     = "off"

  validation {
    condition     = contains(["off", "enforce"], var.app_check)
    error_message = "app_check must be \"off\" or \"enforce\"."
  }
}
