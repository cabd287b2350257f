"""Pure text analysis of French transcripts: words, MLU, function words, verbs, rate, WER."""
