"""Media insights and followers on the fake Instagram, as Meta documents them
(developers.facebook.com/docs/instagram-platform: insights, and Graph's batch requests).

`POST /` (or `/v25.0/`) with `batch`, a JSON array of up to 50 `{method, relative_url}`, answers
an array of `{code, body}` (the body a JSON string), each request handled as if sent alone and
each counted against the caller's limit (`metrics_limit`; Meta's budget is per account per
hour). Over the limit, the whole batch is 429 with Graph's throttle code 4.

`GET /{ig-media-id}/insights?metric=views,reach,likes,comments,saved,shares` answers
`{"data": [{name, period: "lifetime", values: [{value}], title, description, id}]}` for a media
object of the caller's with `instagram_business_manage_insights` (else code 10, 403); a reel
also gives `ig_reels_video_view_total_time` (milliseconds), which any other media refuses
(code 100). A media object that does not exist (deleted) is code 100, subcode 33. Media in
`insights_pending` answer an empty `data` (Instagram's numbers lag). The numbers are a test's
(`insights`), zeros otherwise.

`GET /me?fields=followers_count` gives the account's followers (`followers`, a test's; 0
otherwise)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.graph_shapes import graph_error, no_object, pick
from harness.fakes.platforms.metrics_limits import MetricsLimit

MANAGE_INSIGHTS = "instagram_business_manage_insights"
METRICS = ("views", "reach", "likes", "comments", "saved", "shares")
REELS_WATCH_TIME = "ig_reels_video_view_total_time"
MAX_BATCH = 50
_VERSION = r"/v\d+\.\d+"


class InstagramInsights:
    """FakeInstagram's insights, batches and followers (see the module docstring); mixed in
    before FakeGraph."""

    posts: dict[str, Any]
    users: dict[str, Any]
    lock: Any

    def init_insights(self) -> None:
        self.insights: dict[str, dict[str, int]] = {}
        self.insights_pending: set[str] = set()
        self.followers: dict[str, int] = {}
        self.metrics_limit = MetricsLimit(limit=1_000_000, window=3600)

    def insights_routes(self) -> list[Route]:
        return [
            ("POST", re.compile(rf"(?:{_VERSION})?/?"), self.batch),
            ("GET", re.compile(rf"{_VERSION}/(?P<id>\d+)/insights"), self.media_insights),
        ]

    def delete_post(self, post_id: str) -> None:
        with self.lock:
            self.posts.pop(post_id, None)

    def me(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        fields = self.identity(user) | {"followers_count": self.followers.get(user.id, 0)}  # type: ignore[attr-defined]
        return answer(200, pick(fields, request.query.get("fields", "")))

    def batch(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        try:
            wanted = json.loads((request.form or {}).get("batch", ""))
        except ValueError:
            return graph_error(400, "(#100) The parameter batch must be a JSON array", 100)
        if not isinstance(wanted, list) or not 1 <= len(wanted) <= MAX_BATCH:
            return graph_error(400, f"(#1) Batch requests hold 1 to {MAX_BATCH} requests", 1)
        if not all(self.metrics_limit.take(user.id).allowed for _ in wanted):
            return graph_error(429, "Application request limit reached", code=4)
        out = []
        for item in wanted:
            relative = urlsplit("/" + str(dict(item).get("relative_url", "")).lstrip("/"))
            inner = Request(
                str(item.get("method", "GET")).upper(),
                relative.path,
                dict(parse_qsl(relative.query)),
                request.headers,
                b"",
                request.at,
            )
            result = self._dispatch(inner)  # type: ignore[attr-defined]
            out.append({"code": result.status, "body": json.dumps(result.body)})
        return answer(200, out)

    def media_insights(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        if MANAGE_INSIGHTS not in self.granted(request):  # type: ignore[attr-defined]
            return graph_error(403, "Application does not have permission for this action", code=10)
        wanted = [m.strip() for m in request.query.get("metric", "").split(",") if m.strip()]
        known = (*METRICS, REELS_WATCH_TIME)
        if not wanted or any(m not in known for m in wanted):
            return graph_error(400, "(#100) metric must be one of the following values: " + ", ".join(known), 100)
        post = self.posts.get(match["id"])
        if post is None or post.owner != user.id:
            return no_object(match["id"], "get")
        if REELS_WATCH_TIME in wanted and post.media_type != "REELS":
            return graph_error(
                400,
                f"(#100) The Media Insights API does not support the {REELS_WATCH_TIME} metric for this media product type.",
                100,
            )
        if post.id in self.insights_pending:
            return answer(200, {"data": []})
        numbers = self.insights.get(post.id, {})
        data = [
            {
                "name": name,
                "period": "lifetime",
                "values": [{"value": numbers.get(name, 0)}],
                "title": name.capitalize(),
                "description": f"The number of {name} of your media.",
                "id": f"{post.id}/insights/{name}/lifetime",
            }
            for name in wanted
        ]
        return answer(200, {"data": data})
