"""The one door to git: the repository, its snapshot of the working tree and its history."""
