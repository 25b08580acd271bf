"""The embedded object storage server (`herald storage`)."""
