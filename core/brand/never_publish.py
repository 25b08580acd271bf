"""Finding never-publish phrases in a text: case- and accent-insensitive, Unicode-normalised,
as whole words or phrases (docs/brand-voice.md).

Both sides are folded the same way: NFKD (compatibility forms: `ﬁ` → `fi`, full-width → ASCII),
combining marks removed (`café` → `cafe`), casefolded (`Straße` → `strasse`), curly quotes and
dashes plain, every run of whitespace one space. A phrase then matches where it is not glued to a letter or digit on a
side that is a letter or digit of a script that separates words with spaces: "ban" does not match
in "banner", but a Chinese or Japanese phrase matches inside a sentence, as those scripts have no
spaces to stand at a word's edge. Inner spaces of a phrase match any run of whitespace; other
punctuation must be as written.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import regex

_SPACES = regex.compile(r"\s+")
# Scripts written without spaces between words: a phrase of them needs no word edge.
_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
_WORD = regex.compile(r"[\p{L}\p{N}]")


# Typographic variants NFKD keeps apart from their plain forms.
_PLAIN = str.maketrans({"‘": "'", "’": "'", "‛": "'", "′": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-"})


def fold(text: str) -> str:
    """The text as phrases are compared: NFKD, no combining marks, casefolded, typographic quotes
    and dashes plain, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_PLAIN))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SPACES.sub(" ", unicodedata.normalize("NFC", stripped).casefold()).strip()


def _edge(char: str) -> bool:
    """Whether a match must not be glued to a word character on this side of the phrase."""
    return bool(_WORD.match(char)) and not _UNSPACED.match(char)


def _pattern(phrase: str) -> str:
    folded = fold(phrase)
    body = r"\s+".join(regex.escape(part) for part in folded.split(" "))
    start = r"(?<![\p{L}\p{N}])" if _edge(folded[0]) else ""
    end = r"(?![\p{L}\p{N}])" if _edge(folded[-1]) else ""
    return f"{start}(?:{body}){end}"


class Matcher:
    """The phrases of one voice, compiled once; `find(text)` names the first one present."""

    def __init__(self, phrases: Iterable[str]) -> None:
        self.phrases = tuple(dict.fromkeys(p for p in phrases if fold(p)))
        self._by_folded = {fold(p): p for p in self.phrases}
        # Longest first, so a phrase is reported rather than a shorter one inside it.
        ordered = sorted(self._by_folded, key=len, reverse=True)
        self._regex = regex.compile("|".join(f"({_pattern(p)})" for p in ordered)) if ordered else None
        self._groups = ordered

    def find(self, text: str) -> str | None:
        """The phrase (as the voice spells it) the text contains, or None."""
        if self._regex is None or not text:
            return None
        match = self._regex.search(fold(text))
        if match is None:
            return None
        return self._by_folded[self._groups[match.lastindex - 1]]

    def __bool__(self) -> bool:
        return bool(self.phrases)


@lru_cache(maxsize=1024)
def matcher(phrases: tuple[str, ...]) -> Matcher:
    """A compiled matcher, shared by every call that checks the same phrases."""
    return Matcher(phrases)
