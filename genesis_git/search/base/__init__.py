"""The saved search base of a session: built in the background, read with ``pread``."""
