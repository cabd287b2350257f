"""Synthetic aphasia corpus, corrector training and export."""

import os

# Spinning OpenMP workers fight the other processes for the two cores of the
# shared build machine (training ran ~5x slower with them, see train.py). torch's
# OpenMP runtime reads the variable when it starts, so it is set here, before a
# module of this package imports torch; export it yourself to override.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
