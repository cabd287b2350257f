"""French text-to-speech (SVOX Pico, espeak-ng fallback)."""

from therapy_app.tts.options import SynthesisOptions
from therapy_app.tts.synthesizer import SpeechSynthesizer

__all__ = ["SpeechSynthesizer", "SynthesisOptions"]
