"""Brand voice: how an organization writes and the phrases it never publishes (herald.brand.v1)."""
