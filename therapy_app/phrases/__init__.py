"""The patient's phrase book (issue 27): their own sentences, matched in free speech."""
