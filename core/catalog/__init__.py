"""The catalog: facts the core owns, served to every surface (herald.catalog.v1)."""
