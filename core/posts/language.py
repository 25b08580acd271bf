"""The language of a post's text: a BCP 47 tag (RFC 5646), checked for form and written in its
conventional case (docs/posts.md "Languages and TikTok settings").

A tag is well-formed when it follows RFC 5646's grammar (section 2.1): a primary language
subtag, then optional extended language, script, region, variant, extension and private-use
subtags, or a private-use tag alone (`x-…`). A variant or an extension singleton may not appear
twice (section 2.2.5, 2.2.6). The registry's own list is not consulted: a platform that does
not know a language falls back as it does with any post (Mastodon: the account's default), and
a new subtag registered tomorrow should not need a release of Herald.

Case carries no meaning in a tag, but each part has a conventional one (section 2.1.1): the
language and everything else lowercase, a script title case (`Hant`), a region uppercase (`BR`);
that is how Herald stores and sends it, so `PT-br` and `pt-BR` are one language everywhere.
"""

from __future__ import annotations

import re

MAX_LENGTH = 35  # RFC 5646 section 4.4.1: the longest tag an implementation must take

_LANGTAG = re.compile(
    r"""
    (?P<language>[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})  # the language, with up to 3 extlangs
    (?:-(?P<script>[a-z]{4}))?
    (?:-(?P<region>[a-z]{2}|[0-9]{3}))?
    (?P<variants>(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*)
    (?P<extensions>(?:-[0-9a-wy-z](?:-[a-z0-9]{2,8})+)*)
    (?P<private>-x(?:-[a-z0-9]{1,8})+)?
    """,
    re.VERBOSE,
)
_PRIVATE_USE = re.compile(r"x(?:-[a-z0-9]{1,8})+")


def normalized_language(tag: str) -> str | None:
    """`tag` in its conventional case when it is a well-formed BCP 47 tag, else None."""
    if not tag or len(tag) > MAX_LENGTH or not tag.isascii():
        return None
    lowered = tag.lower()
    if _PRIVATE_USE.fullmatch(lowered):
        return lowered
    found = _LANGTAG.fullmatch(lowered)
    if found is None:
        return None
    variants = found["variants"].split("-")[1:]
    singletons = [part for part in found["extensions"].split("-")[1:] if len(part) == 1]
    if len(set(variants)) < len(variants) or len(set(singletons)) < len(singletons):
        return None
    script = f"-{found['script'].title()}" if found["script"] else ""
    region = f"-{found['region'].upper()}" if found["region"] else ""
    rest = found["variants"] + found["extensions"] + (found["private"] or "")
    return found["language"] + script + region + rest


def language_problem(what: str, tag: str) -> str | None:
    """Why `tag` is not a language Herald takes (VALIDATION_ERROR's message), or None."""
    if normalized_language(tag) is not None:
        return None
    shown = tag[:40]
    return (
        f"{what} {shown!r} is not a BCP 47 language tag (RFC 5646), e.g. 'en', 'pt-BR', 'zh-Hant' "
        f"(at most {MAX_LENGTH} characters)"
    )


def primary_language(tag: str) -> str | None:
    """The ISO 639 language of a normalized tag (`pt` of `pt-BR`), as platforms that take a
    bare language code want it; None for a private-use tag, which names no standard language."""
    primary = tag.split("-", 1)[0]
    return primary if 2 <= len(primary) <= 3 and primary != "x" else None
