"""Benchmarks: scripts that start the real processes and print figures (not timed tests)."""
