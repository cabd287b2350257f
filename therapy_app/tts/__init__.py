"""French text-to-speech (SVOX Pico, espeak-ng fallback)."""
