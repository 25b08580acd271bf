"""The publisher: the posts table as a queue, claimed under leases, delivered exactly once."""
