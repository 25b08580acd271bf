"""Fake platforms on loopback, written from the platforms' documented requests and answers."""

from harness.fakes.platforms.base import FakePlatform, Part, Request
from harness.fakes.platforms.mastodon import FakeMastodon
from harness.fakes.platforms.x import FakeX

__all__ = ["FakeMastodon", "FakePlatform", "FakeX", "Part", "Request"]
