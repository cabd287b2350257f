"""Voice activity detection with Silero VAD through ONNX Runtime."""

from therapy_app.vad.silero import EndOfSpeechDetector, SpeechSegment, VoiceActivityDetector

__all__ = ["EndOfSpeechDetector", "SpeechSegment", "VoiceActivityDetector"]
