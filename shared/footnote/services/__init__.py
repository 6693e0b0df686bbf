"""Use cases over the ports: indexing, re-indexing, notes, chat."""
