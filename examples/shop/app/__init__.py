"""shop-example: an order service."""
