"""The REST surface at /v1 (SPEC 4): one blueprint per resource, grouped under version 1."""

from __future__ import annotations

from sanic import Blueprint

from facades.rest import credits, media, posts, profiles


def rest_v1() -> Blueprint:
    return Blueprint.group(profiles.bp, credits.bp, posts.bp, media.bp, version=1)
