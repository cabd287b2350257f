"""Synthetic Broca's aphasia corpus: pyrealb sentences degraded by agrammatism rules (build time)."""
