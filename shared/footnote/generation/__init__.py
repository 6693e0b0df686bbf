"""Answer generation: prompts, the extractive generator, citation validation."""
