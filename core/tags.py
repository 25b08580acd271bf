"""The one rule for tags, shared by profiles and media: 1-64 of a-z 0-9 _ : -, stored lowercase.
Requests may send them in any case (TAG_RE is what the catalog serves as the input pattern)."""

from __future__ import annotations

import re

from core.errors import ValidationError

TAG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_:-]{0,63}$")


def normalize_tag(tag: str) -> str:
    tag = tag.strip()
    if not TAG_RE.match(tag):
        raise ValidationError(f"tag {tag[:64]!r} must be 1-64 characters of a-z, 0-9, '_', ':' and '-'")
    return tag.lower()
