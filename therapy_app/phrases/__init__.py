"""The patient's phrase book: their own sentences, matched in free speech."""
