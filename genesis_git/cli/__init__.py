"""The thin command-line layer: parse options, call the core, render."""
