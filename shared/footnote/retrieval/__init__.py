"""Retrieval stages: query analysis, candidate sources, fusion, MMR, gating."""
