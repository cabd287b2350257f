"""Build-time code of the picture-naming bank (Twemoji pictures, Lexique 3.83 words)."""
