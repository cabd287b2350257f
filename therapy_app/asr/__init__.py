"""French speech recognition with Whisper through ONNX Runtime."""
