"""Implementations of the ports. Only modules here import Google SDKs or models."""
