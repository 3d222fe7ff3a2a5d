"""Readers turn document text into a position-keeping ``SourceNode`` tree."""
