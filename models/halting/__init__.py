"""Simulated halting (aphasic) French speech: many voices, pauses, hesitations, rooms."""
