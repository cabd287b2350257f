"""Silero VAD ONNX taken from a pinned PyPI wheel."""
