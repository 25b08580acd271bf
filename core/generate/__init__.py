"""Writing tools: the generate_* catalogue, its backends and its runs (herald.generate.v1)."""
