"""scan -> chunk -> classify -> cache -> session map."""
