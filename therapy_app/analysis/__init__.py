"""Pure text analysis of French: words, MLU, function words, verbs, rate, WER, edit distance."""
