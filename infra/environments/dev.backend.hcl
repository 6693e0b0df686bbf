# terraform init -backend-config=environments/dev.backend.hcl
# The bucket must exist first (README.md, Deploy, step 2; docs/deploy.md).
bucket = "YOUR_DEV_PROJECT-tfstate"
prefix = "footnote/dev"
