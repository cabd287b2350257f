"""Synthetic aphasia corpus, corrector training and export."""
