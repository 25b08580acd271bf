"""The REST surface at /v1 (SPEC 4), registered from the operation table (operations.py)."""
