"""Answer generation: the prompt, citation validation and the offline quote answer."""
