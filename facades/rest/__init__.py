"""The REST surface at /v1 (docs/api.md, "Route reference"), registered from the operation table
(operations.py)."""
