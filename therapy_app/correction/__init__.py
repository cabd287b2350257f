"""Correction of agrammatic French into grammatical sentences."""

from therapy_app.correction.corrector import Alternative, Correction, Corrector, CorrectorConfig
from therapy_app.correction.diff import DiffOp, word_diff

__all__ = ["Alternative", "Correction", "Corrector", "CorrectorConfig", "DiffOp", "word_diff"]
