"""Audio clips, WAV files, microphone recording and playback."""
