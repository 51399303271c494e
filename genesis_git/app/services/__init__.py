"""The services of :class:`genesis_git.app.facade.Genesis`, one per noun: each holds the
workspace and offers one method per operation."""
