"""Git hooks: the installer (``install``) and the entry the shims call (``run``).

The shims themselves are the top-level ``hooks/`` folder of the source tree,
shipped inside the wheel as ``genesis_git/_hooks``.
"""
