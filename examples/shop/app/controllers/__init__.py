"""Controllers: turn requests into service calls and service results into responses."""
