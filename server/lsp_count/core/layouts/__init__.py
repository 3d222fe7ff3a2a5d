"""Layouts: the counting engine's builders, one per model shape (decoder, encoder, ...).

A layout reads a resolved ``ModelSpec`` (canonical values only, never raw keys)
and returns the parameter tree. Families choose a layout and set its switches.
"""
