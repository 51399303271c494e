"""Configuration: the settings, their defaults and checks, and the files ``init`` writes."""
