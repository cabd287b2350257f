"""A patient's personal voice: data from practice, adaptation in a separate process, use."""
