"""Wire-level fakes of Google APIs: local HTTP servers speaking the real REST shapes,
so the real SDK clients (request building, transport, retries, parsing) run in tests."""
