"""Providers reached over the network or a process: embedders and LLM engines, and the
one HTTP call they share.  Nothing here is used unless it is configured."""
