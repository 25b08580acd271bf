"""Follower counts of the platforms whose fakes live elsewhere, as each documents them: Bluesky's
`app.bsky.actor.getProfile` on the public AppView (docs.bsky.app: an `actor` DID or handle, no
token; a `profileViewDetailed` with `followersCount`) and Threads' user insights
(developers.facebook.com/docs/threads/insights: `GET /me/threads_insights?metric=followers_count`
with `threads_manage_insights`, answering `{"data": [{name, period: "day", title, description,
total_value: {value}, id}]}`). The counts are a test's (`followers`), 0 otherwise."""

from __future__ import annotations

import re
from typing import Any

from harness.fakes.platforms.base import Answer, FakePlatform, Request, Route, answer
from harness.fakes.platforms.graph_shapes import graph_error


class FakeBlueskyProfiles(FakePlatform):
    """`public.api.bsky.app`'s getProfile (a profile is a test's: `add`)."""

    name = "bsky-profiles"
    hosts = ("public.api.bsky.app",)

    def __init__(self) -> None:
        self.profiles: dict[str, dict[str, Any]] = {}
        super().__init__()

    def add(self, did: str, handle: str, followers: int) -> None:
        with self.lock:
            self.profiles[did] = {"did": did, "handle": handle, "followersCount": followers}

    def routes(self) -> list[Route]:
        return [("GET", re.compile(r"/xrpc/app\.bsky\.actor\.getProfile"), self.get_profile)]

    def get_profile(self, request: Request, match: re.Match[str]) -> Answer:
        actor = request.query.get("actor", "")
        found = self.profiles.get(actor) or next((p for p in self.profiles.values() if p["handle"] == actor), None)
        if found is None:
            return answer(400, {"error": "InvalidRequest", "message": "Profile not found"})
        return answer(
            200,
            found
            | {"displayName": found["handle"], "followsCount": 0, "postsCount": 0, "indexedAt": "2026-01-01T00:00:00Z"},
        )


class ThreadsFollowers:
    """A mixin for FakeThreads: its user insights' follower count."""

    followers: dict[str, int]
    lock: Any

    def followers_routes(self) -> list[Route]:
        return [("GET", re.compile(r"/v\d+\.\d+/me/threads_insights"), self.user_insights)]

    def user_insights(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        if "threads_manage_insights" not in self.granted(request):  # type: ignore[attr-defined]
            return graph_error(403, "Application does not have permission for this action", code=10)
        if request.query.get("metric") != "followers_count":
            return graph_error(400, "(#100) metric must be one of the following values: followers_count", 100)
        value = getattr(self, "followers", {}).get(user.id, 0)
        entry = {
            "name": "followers_count",
            "period": "day",
            "title": "followers_count",
            "description": "The number of followers of your profile.",
            "total_value": {"value": value},
            "id": f"{user.id}/insights/followers_count/day",
        }
        return answer(200, {"data": [entry]})
