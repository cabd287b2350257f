"""Personal-voice training: torch code run in its own process, never imported by therapy_app."""
