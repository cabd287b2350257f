"""Correction of agrammatic French into grammatical sentences."""
