# terraform init -backend-config=environments/prod.backend.hcl
bucket = "YOUR_PROD_PROJECT-tfstate"
prefix = "footnote/prod"
