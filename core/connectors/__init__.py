"""Connectors: one interface (base.py), one module per platform."""
