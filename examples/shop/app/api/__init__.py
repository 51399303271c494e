"""HTTP surface: routes and the request/response schemas."""
