"""Posts: creation, validation, the post lifecycle."""
