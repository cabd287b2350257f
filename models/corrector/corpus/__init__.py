"""Synthetic Broca's aphasia corpus: generated sentences degraded by agrammatism rules."""
