"""``genesis web``: the story pages for analysts and testers, served on this machine.

A door like ``cli/`` and ``mcp/``: read-only pages over the same
:class:`~genesis_git.app.facade.Genesis` façade, with their assets inside the package
(no CDN, no network).  Needs the optional extra ``web`` (Starlette and uvicorn).
"""
