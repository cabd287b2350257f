"""Voice activity detection with Silero VAD through ONNX Runtime."""
