"""Webhooks: the organization's endpoints that receive signed lifecycle events (docs/webhooks.md)."""
