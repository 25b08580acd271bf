"""A fake Bluesky AppView (`public.api.bsky.app`) on loopback: `app.bsky.feed.getPosts` as the
lexicon documents it (docs.bsky.app, app.bsky.feed.getPosts): up to 25 `uris`, no token, each
post it has indexed answered as a `postView` with its counts, the others left out (deleted or
never seen). The real AppView indexes the network; here a test says what it indexed (`index`),
with its counts (zeros otherwise), and removes a deleted post (`delete`). The limit is per client
address (`metrics_limit`, 3,000 a 5 minutes by default) with `RateLimit-*` headers (the reset in
epoch seconds); over it, 429 `RateLimitExceeded`. A PDS has no counts: reading goes here."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

from harness.fakes.platforms.base import Answer, FakePlatform, Request, Route, answer
from harness.fakes.platforms.metrics_limits import MetricsLimit

HOSTS = ("public.api.bsky.app",)
COUNTS = ("likeCount", "repostCount", "replyCount", "quoteCount", "bookmarkCount")


class FakeAppView(FakePlatform):
    name = "bsky-appview"

    def __init__(self) -> None:
        self.posts: dict[str, dict[str, Any]] = {}
        self.metrics_limit = MetricsLimit(limit=3000, window=300)
        super().__init__()

    def index(self, uri: str, counts: dict[str, int] | None = None, cid: str = "bafyreifake") -> None:
        did = uri.removeprefix("at://").split("/", 1)[0]
        with self.lock:
            self.posts[uri] = {"uri": uri, "cid": cid, "did": did, "counts": dict(counts or {}), "at": time.time()}

    def delete(self, uri: str) -> None:
        with self.lock:
            self.posts.pop(uri, None)

    def routes(self) -> list[Route]:
        return [("GET", re.compile(r"/xrpc/app\.bsky\.feed\.getPosts"), self.get_posts)]

    def not_found(self, request: Request) -> Answer:
        return answer(501, {"error": "MethodNotImplemented", "message": "Method Not Implemented"})

    def get_posts(self, request: Request, match: re.Match[str]) -> Answer:
        verdict = self.metrics_limit.take("app")
        limits = {
            "ratelimit_limit": str(verdict.limit),
            "ratelimit_remaining": str(verdict.remaining),
            "ratelimit_reset": str(int(verdict.reset)),
            "ratelimit_policy": f"{verdict.limit};w={int(self.metrics_limit.window)}",
        }
        if not verdict.allowed:
            return answer(429, {"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}, **limits)
        uris = [v for k, v in parse_qsl(request.raw_query) if k == "uris"]
        if not 1 <= len(uris) <= 25 or not all(u.startswith("at://") for u in uris):
            return answer(400, {"error": "InvalidRequest", "message": "uris must be 1 to 25 at-uris"}, **limits)
        with self.lock:
            found = [self._view(self.posts[u]) for u in uris if u in self.posts]
        return answer(200, {"posts": found}, **limits)

    def _view(self, post: dict[str, Any]) -> dict[str, Any]:
        created = datetime.fromtimestamp(post["at"], UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return {
            "uri": post["uri"],
            "cid": post["cid"],
            "author": {"did": post["did"], "handle": "handle.invalid"},
            "record": {"$type": "app.bsky.feed.post", "text": "", "createdAt": created},
            **{name: post["counts"].get(name, 0) for name in COUNTS},
            "indexedAt": created,
            "labels": [],
        }
