# terraform init -backend-config=environments/dev.backend.hcl
# The bucket must exist first (docs/deploy.md, step 2).
bucket = "YOUR_DEV_PROJECT-tfstate"
prefix = "footnote/dev"
