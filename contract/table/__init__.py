"""The rows of the operation table, one module per domain; contract/operations.py assembles them."""
