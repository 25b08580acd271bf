"""Persistence: schema, engine and the migrations that build the schema."""
