"""Business rules for orders and users."""
