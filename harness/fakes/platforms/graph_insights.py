"""Media insights on the fake Threads, as Meta documents them (developers.facebook.com/docs/
threads/insights): `GET /{threads-media-id}/insights?metric=views,likes,replies,reposts,quotes,
shares` answers `{"data": [{name, period: "lifetime", values: [{value}], title, description,
id}]}` for a post of the caller's, with `threads_manage_insights` (else Graph error 10, 403). A
post that does not exist (deleted) is error 100/33. The numbers are a test's (`insights`), zeros
otherwise; calls are limited per user (`metrics_limit`; Meta's real budget grows with the
account's impressions) with 429s and Graph's throttle code 4 over it."""

from __future__ import annotations

import re
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.graph_shapes import graph_error, no_object
from harness.fakes.platforms.metrics_limits import MetricsLimit

MANAGE_INSIGHTS = "threads_manage_insights"
METRICS = ("views", "likes", "replies", "reposts", "quotes", "shares")
_VERSION = r"/v\d+\.\d+"


class ThreadsInsights:
    """FakeThreads' insights (see the module docstring); mixed in before FakeGraph."""

    posts: dict[str, Any]
    lock: Any

    def init_insights(self) -> None:
        self.insights: dict[str, dict[str, int]] = {}
        self.metrics_limit = MetricsLimit(limit=1_000_000, window=86_400)

    def insights_routes(self) -> list[Route]:
        return [("GET", re.compile(rf"{_VERSION}/(?P<id>\d+)/insights"), self.media_insights)]

    def delete_post(self, post_id: str) -> None:
        with self.lock:
            self.posts.pop(post_id, None)

    def media_insights(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        if MANAGE_INSIGHTS not in self.granted(request):  # type: ignore[attr-defined]
            return graph_error(403, "Application does not have permission for this action", code=10)
        if not self.metrics_limit.take(user.id).allowed:
            return graph_error(429, "Application request limit reached", code=4)
        wanted = [m.strip() for m in request.query.get("metric", "").split(",") if m.strip()]
        if not wanted or any(m not in METRICS for m in wanted):
            return graph_error(400, "(#100) metric must be one of the following values: " + ", ".join(METRICS), 100)
        with self.lock:
            post = self.posts.get(match["id"])
            if post is None or post.owner != user.id:
                return no_object(match["id"], "get")
            numbers = self.insights.get(post.id, {})
        data = [
            {
                "name": name,
                "period": "lifetime",
                "values": [{"value": numbers.get(name, 0)}],
                "title": name.capitalize(),
                "description": f"The number of {name} of your post.",
                "id": f"{post.id}/insights/{name}/lifetime",
            }
            for name in wanted
        ]
        return answer(200, {"data": data})
