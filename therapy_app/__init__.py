"""Speech-therapy practice for people with Broca's aphasia (French first)."""

__version__ = "0.1.0"
