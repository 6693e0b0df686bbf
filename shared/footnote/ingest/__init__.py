"""Indexing stages: sanitise, chunk, classify; each a pure function."""
