"""Analytics: what each published post did on its platform (docs/analytics.md)."""
