"""Never-publish matching (core/brand/never_publish.py): case- and accent-insensitive, Unicode-
normalised, whole words or phrases. Pure."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.brand.never_publish import Matcher, fold

PHRASES = ["cheap", "Free shipping", "café", "禁止", "C++", "#spam", "don't", "Straße"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("This is CHEAP!", "cheap"),
        ("ᴄheap", None),  # a small-capital C is another letter, not a case
        ("cheaper prices", None),
        ("dirt-cheap", "cheap"),
        ("free   shipping today", "Free shipping"),
        ("FREE\nSHIPPING", "Free shipping"),
        ("Free-shipping", None),
        ("Café au lait", "café"),
        ("CAFE", "café"),
        ("cafe\u0301 crème", "café"),  # e + combining acute, decomposed
        ("これは禁止です", "禁止"),
        ("I love C++.", "C++"),
        ("buy #spam now", "#spam"),
        ("#spammy", None),
        ("Don’t stop", "don't"),  # a typographic apostrophe
        ("STRASSE", "Straße"),
        ("ｃｈｅａｐ", "cheap"),  # full-width
        ("nothing here", None),
        ("", None),
    ],
)
def test_matches(text: str, found: str | None) -> None:
    assert Matcher(PHRASES).find(text) == found


def test_the_longest_phrase_is_named() -> None:
    assert Matcher(["free", "free shipping"]).find("Free shipping for all") == "free shipping"


def test_an_empty_list_matches_nothing() -> None:
    assert not Matcher([]) and Matcher([]).find("anything") is None
    assert not Matcher(["   "])


words = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(phrase=words, before=st.text(max_size=20), after=st.text(max_size=20))
def test_a_phrase_between_non_letters_is_always_found(phrase: str, before: str, after: str) -> None:
    """Whatever surrounds it, a phrase standing apart (spaces around it) is found, in any case
    Unicode's default case folding equates with it (Turkish dotless ı uppercases to I, which folds
    to i: another letter)."""
    if not fold(phrase) or fold(phrase.upper()) != fold(phrase):
        return
    assert Matcher([phrase]).find(f"{before} {phrase.upper()} {after}") is not None


@settings(max_examples=300, deadline=None)
@given(phrase=words, glue=st.text(alphabet="abcxyz", min_size=1, max_size=3))
def test_a_latin_phrase_inside_a_longer_word_is_not_found(phrase: str, glue: str) -> None:
    folded = fold(phrase)
    if not folded.isascii() or not folded.isalpha():
        return  # the property is about words of a spaced script
    assert Matcher([phrase]).find(f"{glue}{phrase}{glue}") is None or folded in fold(glue)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60))
def test_folding_is_stable(text: str) -> None:
    once = fold(text)
    assert fold(once) == once
    assert not any(unicodedata.combining(c) for c in once)
