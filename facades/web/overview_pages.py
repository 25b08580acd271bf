"""The overview (`/dashboard`, docs/dashboard.md "Overview"): for a member who may approve, the
posts waiting for approval; what goes out in the next 7 days, the failures of the last 30 days
that need a person, the profiles to connect again, the credits, each linking to where it is
fixed; and the organization switcher every page's header carries."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import accounts_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.post_links import post_page_path
from facades.errors import ApiError
from facades.web import post_review
from facades.web.pages import Route, dashboard_page, form_value, navigation, plan_name, see_other, signed_in, when
from facades.web.profiles_pages import connection_health, profile_path
from facades.web.session import Viewer

AHEAD = timedelta(days=7)
FAILURES_SINCE = timedelta(days=30)
# The most posts each list asks the core for (ListPosts' page maximum), and the most profiles.
POSTS_ASKED = 100
PROFILES_ASKED = 500
FAILURES_SHOWN = 25
WAITING_SHOWN = 25
EXCERPT = 120


def _status(post: posts_pb2.Post) -> str:
    return posts_pb2.PostStatus.Name(post.status).removeprefix("POST_STATUS_").lower()


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else f"{flat[: EXCERPT - 1]}…"


def _upcoming(posts: list[posts_pb2.Post], zone: str) -> list[dict[str, Any]]:
    """The scheduled posts as the overview lists them: the posts one request made (a post group)
    together when it has more than one destination, soonest first."""
    groups: dict[str, list[posts_pb2.Post]] = {}
    for post in sorted(posts, key=lambda p: (p.schedule_time.ToNanoseconds(), p.id)):
        groups.setdefault(post.group_id or post.id, []).append(post)
    shown = []
    for group_id, members in groups.items():
        first = members[0]
        shown.append(
            {
                "group_id": group_id,
                "when": when(first.schedule_time, zone, ""),
                "excerpt": _excerpt(first.content),
                "posts": [
                    {
                        "id": p.id,
                        "href": post_page_path(p.id),
                        "profile": p.profile,
                        "platform": p.connector,
                        # A post of the group moved to another time says so.
                        "when": when(p.schedule_time, zone, "") if p.schedule_time != first.schedule_time else "",
                    }
                    for p in members
                ],
            }
        )
    return shown


def _failures(posts: list[posts_pb2.Post], zone: str, since: datetime) -> list[dict[str, Any]]:
    """Failed and partly published posts that failed since `since`, latest first: each one's
    reason and a link to its page, where Retry is."""
    recent = [p for p in posts if p.update_time.ToDatetime(UTC) >= since]
    recent.sort(key=lambda p: (p.update_time.ToNanoseconds(), p.id), reverse=True)
    return [
        {
            "id": p.id,
            "href": post_page_path(p.id),
            "profile": p.profile,
            "platform": p.connector,
            "status": _status(p),
            "reason": p.failure_reason,
            "detail": p.failure_detail or p.platform_error,
            "when": when(p.update_time, zone, ""),
            "excerpt": _excerpt(p.content),
        }
        for p in recent
    ]


def _waiting(posts: list[posts_pb2.Post], viewer: Viewer) -> list[dict[str, Any]]:
    """The posts waiting for approval, soonest first, each linking to its page (Approve, Reject)."""
    ordered = sorted(posts, key=lambda p: (p.schedule_time.ToNanoseconds(), p.id))
    return [
        {
            "id": p.id,
            "href": post_page_path(p.id),
            "profile": p.profile,
            "platform": p.connector,
            "when": when(p.schedule_time, viewer.time_zone, ""),
            "via": post_review.VIA.get(p.author_via, p.author_via),
            "own": post_review.own(p, viewer),
            "excerpt": _excerpt(p.content),
        }
        for p in ordered
    ]


def _to_reconnect(profiles: list[profiles_pb2.Profile], zone: str, now: datetime) -> list[dict[str, Any]]:
    """The profiles a human must connect again: refused by their platform, or whose token ends
    within 7 days (or has ended) and Herald cannot renew it."""
    shown = []
    for p in profiles:
        health = connection_health(p, zone, now)
        if health["attention"]:
            shown.append({"slug": p.slug, "platform": p.connector, "href": profile_path(p.slug), "health": health})
    return shown


@signed_in
async def overview(request: Request, viewer: Viewer) -> HTTPResponse:
    """The posts waiting for approval (for a member who may approve), the next 7 days, the
    failures that need a person, the profiles to connect again and the credits, each linking to
    where it is fixed."""
    core = request.app.ctx.core
    now = datetime.now(UTC)
    auth = viewer.authorization

    async def posts(**filters: Any) -> posts_pb2.ListPostsResponse:
        # Posts are read with a plan only (a session without one is told so in their sections).
        if not with_plan:
            return posts_pb2.ListPostsResponse()
        found = await core.call(
            core.posts.ListPosts, posts_pb2.ListPostsRequest(page_size=POSTS_ASKED, **filters), authorization=auth
        )
        return found.response

    with_plan = plan_name(viewer.principal.plan) != "none"
    account, scheduled, failed, partial, profiles, reviewer, waiting, nav = await asyncio.gather(
        core.call(
            core.credits.GetCreditAccount, credits_pb2.GetCreditAccountRequest(recent_entries=0), authorization=auth
        ),
        posts(status="scheduled", scheduled_after=now.isoformat(), scheduled_before=(now + AHEAD).isoformat()),
        posts(status="failed"),
        posts(status="partially_published"),
        core.call(
            core.profiles.ListProfiles, profiles_pb2.ListProfilesRequest(page_size=PROFILES_ASKED), authorization=auth
        ),
        post_review.reviewer(request, viewer),
        posts(status=post_review.PENDING),
        navigation(request, viewer),
    )
    waiting_shown = _waiting(list(waiting.posts), viewer) if reviewer.allowed else []
    failures = _failures([*failed.posts, *partial.posts], viewer.time_zone, now - FAILURES_SINCE)
    return await dashboard_page(
        request,
        viewer,
        "overview.html",
        "overview",
        nav=nav,
        email=viewer.principal.email,
        plan=plan_name(viewer.principal.plan),
        posts_shown=with_plan,
        balance=account.response.balance,
        low_credit_threshold=account.response.low_credit_threshold,
        upcoming=_upcoming(list(scheduled.posts), viewer.time_zone),
        upcoming_more=bool(scheduled.next_page_token),
        failures=failures[:FAILURES_SHOWN],
        failures_more=len(failures) > FAILURES_SHOWN or bool(failed.next_page_token or partial.next_page_token),
        to_reconnect=_to_reconnect(list(profiles.response.profiles), viewer.time_zone, now),
        reviews=reviewer.allowed and with_plan,
        waiting=waiting_shown[:WAITING_SHOWN],
        waiting_count=len(waiting_shown),
        waiting_more=bool(waiting.next_page_token),
    )


@signed_in
async def switch_organization(request: Request, viewer: Viewer) -> HTTPResponse:
    """Makes another organization of the user's the session's current one."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.accounts.SwitchOrganization,
            accounts_pb2.SwitchOrganizationRequest(organization=form_value(request, "organization")),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
            raise
        return await dashboard_page(
            request,
            viewer,
            "message.html",
            "overview",
            status=error.http_status,
            heading="Organization not switched",
            message=error.message,
            role_alert=True,
            link="/dashboard",
            link_text="Back to the overview",
        )
    return see_other("/dashboard?notice=switched")


ROUTES = (
    Route("GET", "/dashboard", overview),
    Route("POST", "/dashboard/organization", switch_organization),
)
