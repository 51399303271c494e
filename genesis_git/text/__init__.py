"""Text: the one tokenizer (CJK bigrams, identifier splitting), query bounds, quoting, and
BM25, the only scoring arithmetic.  Standard library only."""
