"""The spatial model: areas, geometries, location paths (routes and triggers later)."""
