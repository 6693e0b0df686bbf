"""The HTTP API: schemas, routing, auth, error envelope."""
