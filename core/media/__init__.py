"""The media library: uploads through object storage, confirmation, dedupe."""
