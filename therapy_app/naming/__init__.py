"""Picture naming: the bundled item bank, its candidates for scoring and its cues (no Qt)."""
