"""Footnote: answers from a user's own notes, every claim cited."""

__version__ = "0.1.0"
