"""Share statistics and follower counts on the fake LinkedIn, as the Community Management API
documents them (learn.microsoft.com/linkedin/marketing/community-management: organizations/
share-statistics, organizations/organization-lookup-api networkSizes, members/follower-statistics).

`GET /rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=<page
URN>&shares=List(...)&ugcPosts=List(...)` takes the REST headers, `rw_organization_admin` and an
administrator of the page (a page is a test's, `add_page`; 403 otherwise), and answers
`{"elements": [{organizationalEntity, share | ugcPost, totalShareStatistics: {impressionCount,
uniqueImpressionsCount, clickCount, likeCount, commentCount, shareCount, engagement}}],
"paging"}` for each post asked that the page has (posted by it, or `seed_posts`'); a post not
there (deleted) is left out. The numbers are a test's (`share_statistics`), zeros otherwise.
Calls are limited per member (`metrics_limit`; LinkedIn shows its daily limits in the developer
portal only), 429 over it.

`GET /rest/networkSizes/{page URN}?edgeType=COMPANY_FOLLOWED_BY_MEMBER` gives a page's
`firstDegreeSize` (`page_followers`); `GET /rest/memberFollowersCount?q=me` a member's followers
(`member_followers`), which needs `r_member_profileAnalytics`, granted by LinkedIn to approved
partners only (403 without it)."""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import unquote

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.linkedin_comments import rest_error
from harness.fakes.platforms.metrics_limits import MetricsLimit

PAGE_ADMIN = "rw_organization_admin"
MEMBER_ANALYTICS = "r_member_profileAnalytics"
COUNTS = ("impressionCount", "uniqueImpressionsCount", "clickCount", "likeCount", "commentCount", "shareCount")
MAX_POSTS = 20  # not LinkedIn's (it publishes none): Herald's bound, kept here to see it kept
_LIST = re.compile(r"List\((?P<items>[^)]*)\)")


class LinkedInStatistics:
    """FakeLinkedIn's statistics and follower counts (see the module docstring)."""

    posts: list[Any]
    members: dict[str, Any]
    access_tokens: dict[str, Any]
    lock: Any

    def init_statistics(self) -> None:
        self.pages: dict[str, set[str]] = {}  # page URN -> its administrators' subs
        self.share_statistics: dict[str, dict[str, int]] = {}
        self.seeded: dict[str, str] = {}  # post URN -> the page that posted it
        self.page_followers: dict[str, int] = {}
        self.member_followers: dict[str, int] = {}
        self.metrics_limit = MetricsLimit(limit=100_000, window=86_400)

    def statistics_routes(self) -> list[Route]:
        return [
            ("GET", re.compile(r"/rest/organizationalEntityShareStatistics"), self.share_statistics_finder),
            ("GET", re.compile(r"/rest/networkSizes/(?P<urn>[^/]+)"), self.network_size),
            ("GET", re.compile(r"/rest/memberFollowersCount"), self.member_followers_count),
        ]

    def add_page(self, admin_sub: str) -> str:
        """A company page the member administers; its URN."""
        with self.lock:
            urn = f"urn:li:organization:{10_000_000 + secrets.randbelow(89_999_999)}"
            self.pages[urn] = {admin_sub}
            return urn

    def grant_scope(self, sub: str, scope: str) -> None:
        """Every token of the member is granted `scope` too (a partner app's approval)."""
        with self.lock:
            for grant in self.access_tokens.values():
                if grant.subject == sub and scope not in grant.scopes:
                    grant.scopes = (*grant.scopes, scope)

    def seed_posts(self, page: str, count: int, kind: str = "share") -> list[str]:
        with self.lock:
            made = [f"urn:li:{kind}:{7_000_000_000_000_000_000 + secrets.randbelow(10**18)}" for _ in range(count)]
            self.seeded.update(dict.fromkeys(made, page))
            return made

    def delete_post(self, urn: str) -> None:
        with self.lock:
            self.posts[:] = [p for p in self.posts if p.urn != urn]
            self.seeded.pop(urn, None)

    def share_statistics_finder(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request, PAGE_ADMIN)  # type: ignore[attr-defined]
        if isinstance(member, Answer):
            return member
        q = request.query
        page = q.get("organizationalEntity", "")
        if q.get("q") != "organizationalEntity" or not page:
            return rest_error(400, "ILLEGAL_ARGUMENT", "q=organizationalEntity and organizationalEntity are required.")
        if member.sub not in self.pages.get(page, set()):
            return rest_error(
                403,
                "ACCESS_DENIED",
                "Not enough permissions to access: organizationalEntityShareStatistics.FINDER-organizationalEntity",
                service_code=100,
            )
        if not self.metrics_limit.take(member.sub).allowed:
            return rest_error(429, "TOO_MANY_REQUESTS", "Resource level throttle limit reached.")
        asked = [("share", u) for u in _listed(q.get("shares", ""))] + [
            ("ugcPost", u) for u in _listed(q.get("ugcPosts", ""))
        ]
        if len(asked) > MAX_POSTS:
            return rest_error(400, "ILLEGAL_ARGUMENT", f"At most {MAX_POSTS} posts a call.")
        own = {u for u, owner in self.seeded.items() if owner == page} | {p.urn for p in self.posts if p.author == page}
        elements = []
        for field, urn in asked:
            if urn not in own:
                continue
            numbers = {name: self.share_statistics.get(urn, {}).get(name, 0) for name in COUNTS}
            shown = numbers["impressionCount"] or 1
            engagement = (numbers["clickCount"] + numbers["likeCount"] + numbers["commentCount"]) / shown
            elements.append(
                {
                    "organizationalEntity": page,
                    field: urn,
                    "totalShareStatistics": numbers | {"engagement": engagement},
                }
            )
        return answer(200, {"paging": {"count": 10, "start": 0, "links": []}, "elements": elements})

    def network_size(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request, PAGE_ADMIN)  # type: ignore[attr-defined]
        if isinstance(member, Answer):
            return member
        page = unquote(match["urn"])
        if request.query.get("edgeType") != "COMPANY_FOLLOWED_BY_MEMBER" or page not in self.pages:
            return rest_error(400, "ILLEGAL_ARGUMENT", "edgeType COMPANY_FOLLOWED_BY_MEMBER of a page is required.")
        return answer(200, {"firstDegreeSize": self.page_followers.get(page, 0)})

    def member_followers_count(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request, MEMBER_ANALYTICS)  # type: ignore[attr-defined]
        if isinstance(member, Answer):
            return member
        if request.query.get("q") != "me":
            return rest_error(400, "ILLEGAL_ARGUMENT", "q=me is required.")
        return answer(
            200, {"paging": {}, "elements": [{"memberFollowersCount": self.member_followers.get(member.sub, 0)}]}
        )


def _listed(value: str) -> list[str]:
    """The URNs of a Rest.li 2.0 `List(...)` (its items percent-encoded inside)."""
    found = _LIST.fullmatch(value.strip())
    if found is None:
        return []
    return [unquote(item) for item in found["items"].split(",") if item]
