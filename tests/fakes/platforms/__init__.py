"""Fake platforms on loopback, written from the platforms' documented requests and answers."""

from tests.fakes.platforms.base import FakePlatform, Part, Request
from tests.fakes.platforms.mastodon import FakeMastodon
from tests.fakes.platforms.x import FakeX

__all__ = ["FakeMastodon", "FakePlatform", "FakeX", "Part", "Request"]
