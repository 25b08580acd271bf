"""The organization's posts in the dashboard (docs/dashboard.md, "Posts"), grouped by the request
that created them: one row per post group with its destinations, upcoming groups soonest first and
then history newest first (`PostService/ListPostGroups`, keyset pages both ways), filtered by
status, profile, tag and a date range in the organization's time zone; each group canceled,
rescheduled, approved or rejected as a whole (post_group_pages.py), each destination on its own
page (post_detail_pages.py) and edited on its own in compose (`?edit=`, compose_edit.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from google.protobuf.timestamp_pb2 import Timestamp
from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.post_links import post_page_path, sandbox_anchor
from facades.errors import ApiError
from facades.web import post_review
from facades.web.pages import Route, dashboard_page, listed_profiles, notice, signed_in, when
from facades.web.session import Viewer
from facades.web.statuses import POST_STATUSES

GROUPS_PER_PAGE = 25
STATUSES = POST_STATUSES
# What a group action changes (docs/posts.md, "Post groups"; core/posts/records.py EDITABLE).
EDITABLE = ("draft", "scheduled", "queued", "pending_approval")
EXCERPT = 140
# The list's query: what a group action's form carries back, so its answer shows the same list.
QUERY_KEYS = ("status", "profile", "tag", "from", "to", "page")
GROUP_NOTICES = {
    "group-canceled": "The post is canceled for every destination: it will not be published, and what it held "
    "is refunded.",
    "group-rescheduled": "The post is rescheduled for every destination.",
    "group-approved": "The post is approved for every destination that waited: each goes out at its time.",
    "group-rejected": "The post is rejected for every destination that waited: each is a draft again, with your "
    "review.",
}


# -- the filters ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filters:
    status: str = ""
    profile: str = ""
    tag: str = ""
    start: str = ""  # from, a date (YYYY-MM-DD) in the organization's zone
    end: str = ""  # to, a date, included
    page: str = ""

    @property
    def any(self) -> bool:
        return bool(self.status or self.profile or self.tag or self.start or self.end)

    def query(self, **changed: str) -> dict[str, str]:
        """The list's query string values (the empty ones left out), with `changed` applied."""
        values = {
            "status": self.status,
            "profile": self.profile,
            "tag": self.tag,
            "from": self.start,
            "to": self.end,
            "page": self.page,
        }
        return {name: value for name, value in (values | changed).items() if value}

    def path(self, **changed: str) -> str:
        query = urlencode(self.query(**changed))
        return f"/dashboard/posts?{query}" if query else "/dashboard/posts"


def read_filters(values: dict[str, str]) -> Filters:
    """The filters a query asks for: a status Herald does not have is dropped, the rest kept as
    given (bounded) for the core and read_dates to judge."""
    status = values.get("status", "")
    page = values.get("page", "")
    return Filters(
        status=status if status in STATUSES else "",
        profile=values.get("profile", "")[:64],
        tag=values.get("tag", "")[:64],
        start=values.get("from", "")[:10],
        end=values.get("to", "")[:10],
        page=page if len(page) <= 512 else "",
    )


def org_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        return ZoneInfo("UTC")


def day_bounds(filters: Filters, zone: str) -> tuple[str, str]:
    """From and to, dates in the organization's zone, as the instants the core filters on: from's
    first instant (included) and the first instant of the day after to (excluded)."""
    tz = org_zone(zone)

    def day(text: str, argument: str) -> date | None:
        if not text:
            return None
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise ApiError(
                "VALIDATION_ERROR", f"{argument.capitalize()} must be a date (YYYY-MM-DD)", {"argument": argument}
            ) from None

    def first_instant(of: date) -> str:
        moment = datetime.combine(of, time(0), tzinfo=tz).astimezone(UTC)
        return moment.isoformat().replace("+00:00", "Z")

    start, end = day(filters.start, "from"), day(filters.end, "to")
    if start and end and end < start:
        raise ApiError("VALIDATION_ERROR", "To must not be before From", {"argument": "to"})
    try:
        return (first_instant(start) if start else "", first_instant(end + timedelta(days=1)) if end else "")
    except OverflowError:  # the calendar's first or last days
        raise ApiError("VALIDATION_ERROR", "From and To must be dates between the years 2 and 9998") from None


def groups_request(filters: Filters, zone: str) -> posts_pb2.ListPostGroupsRequest:
    """What the page asks the core for these filters, dates read in `zone` (bench.posts_page
    measures this very request)."""
    after, before = day_bounds(filters, zone)
    return posts_pb2.ListPostGroupsRequest(
        status=filters.status,
        profile=filters.profile,
        tag=filters.tag,
        scheduled_after=after,
        scheduled_before=before,
        page_size=GROUPS_PER_PAGE,
        page_token=filters.page,
    )


# -- what a row shows ------------------------------------------------------------------------------


def _status(post: posts_pb2.Post) -> str:
    return posts_pb2.PostStatus.Name(post.status).removeprefix("POST_STATUS_").lower()


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else f"{text[: EXCERPT - 1]}…"


def _outcome_link(post: posts_pb2.Post) -> str:
    """Where the post is: the platform's own https page, or for a sandbox delivery its entry on
    the post's page here (docs/posts.md, "Sandbox links"); "" when neither."""
    if (anchor := sandbox_anchor(post.platform_url, post.id)) is not None:
        return f"{post_page_path(post.id)}#{anchor}"
    return post.platform_url if post.platform_url.startswith("https://") else ""


def _parts(post: posts_pb2.Post) -> str:
    """What the post delivers after itself, and how far it got: "thread 2/3 out, first comment"."""
    out = []
    if post.thread:
        sent = sum(1 for t in post.thread if t.status == "published")
        out.append(f"thread {sent}/{len(post.thread)} out" if sent else f"thread of {len(post.thread)}")
    if post.HasField("first_comment"):
        out.append("first comment" + (" out" if post.first_comment.status == "published" else ""))
    return ", ".join(out)


def local_input(stamp: Timestamp, zone: str) -> str:
    """An instant as a datetime-local field's value in the organization's zone."""
    if not stamp.seconds:
        return ""
    return datetime.fromtimestamp(stamp.seconds, org_zone(zone)).strftime("%Y-%m-%dT%H:%M")


def _actions(posts: list[dict[str, Any]]) -> dict[str, str]:
    """The group's "Reschedule" and "Cancel post": enabled while every destination not
    canceled is a draft, waiting, scheduled or queued, and one is (what the core's group actions
    require); else disabled, with the reason."""
    live = [p for p in posts if p["status"] != "canceled"]
    if not live:
        return {"enabled": "", "why": "Every destination of this post is canceled: there is nothing to change."}
    if stuck := next((p for p in live if p["status"] not in EDITABLE), None):
        return {
            "enabled": "",
            "why": "A post is rescheduled or canceled as a whole only while each destination is a draft, "
            f"waiting, scheduled or queued: {stuck['profile']} is {stuck['status'].replace('_', ' ')}. "
            "Open a destination to act on it alone.",
        }
    return {"enabled": "true", "why": ""}


def group_row(listed: posts_pb2.ListedPostGroup, zone: str) -> dict[str, Any]:
    group = listed.group
    matching = set(listed.matching_post_ids)
    send_time = listed.send_time
    posts = [
        {
            "id": p.id,
            "profile": p.profile,
            "platform": p.connector,
            "status": _status(p),
            "matching": p.id in matching,
            # A destination's own time, shown when it is not the group's.
            "at": when(p.schedule_time, zone, "") if p.schedule_time.seconds != send_time.seconds else "",
            "url": _outcome_link(p),
            "parts": _parts(p),
            "failure": p.failure_reason,
            # Its own "Edit" (compose, `?edit=`): what UpdatePost changes.
            "editable": _status(p) in EDITABLE,
        }
        for p in group.posts
    ]
    first = next((p for p in group.posts if p.id in matching), group.posts[0])
    return {
        "id": group.id,
        "section": listed.section,
        "send_time": when(send_time, zone, ""),
        "schedule_value": local_input(send_time, zone),
        "excerpt": _excerpt(first.content),
        "versions": len({p.content for p in group.posts}) > 1,
        "posts": posts,
        "hidden": sum(1 for p in posts if not p["matching"]),
        "actions": _actions(posts),
        # Destinations waiting for approval: the group's "Approve" and "Reject" act on them.
        "waiting": sum(1 for p in posts if p["status"] == post_review.PENDING),
    }


# -- the page ---------------------------------------------------------------------------------------


async def _groups(request: Request, viewer: Viewer, filters: Filters) -> posts_pb2.ListPostGroupsResponse:
    core = request.app.ctx.core
    listed = await core.call(
        core.posts.ListPostGroups, groups_request(filters, viewer.time_zone), authorization=viewer.authorization
    )
    return listed.response


async def posts_page(
    request: Request,
    viewer: Viewer,
    filters: Filters,
    *,
    status: int = 200,
    failure: ApiError | None = None,
    flash: str | None = None,
    typed: dict[str, str] | None = None,
) -> HTTPResponse:
    """The list for these filters (and, after a refused action, why it was refused; `typed`: a
    refused review's form as it was sent, its `group` and `comment`)."""
    profiles, groups = await asyncio.gather(
        listed_profiles(request, viewer.authorization), _groups(request, viewer, filters), return_exceptions=True
    )
    if isinstance(profiles, BaseException):
        raise profiles
    problem = failure
    if isinstance(groups, ApiError) and groups.code == "VALIDATION_ERROR":
        problem, status, groups = groups, groups.http_status, None
    elif isinstance(groups, BaseException):
        raise groups
    rows = [group_row(g, viewer.time_zone) for g in groups.groups] if groups is not None else []
    # Asked only when a group shows Approve and Reject.
    reviewer = await post_review.reviewer(request, viewer) if any(r["waiting"] for r in rows) else None
    sections = [
        {"name": name, "title": title, "groups": [r for r in rows if r["section"] == name]}
        for name, title in (("upcoming", "Upcoming"), ("history", "History"))
    ]
    next_token = groups.next_page_token if groups is not None else ""
    previous_token = groups.previous_page_token if groups is not None else ""
    return await dashboard_page(
        request,
        viewer,
        "posts.html",
        "posts",
        status=status,
        flash=flash,
        failure={"code": problem.code, "message": problem.message} if problem else None,
        filters=filters,
        back=urlencode(filters.query()),
        statuses=STATUSES,
        profiles=[{"slug": p.slug, "platform": p.connector} for p in profiles],
        tags=sorted({t for p in profiles for t in p.tags}),
        sections=[s for s in sections if s["groups"]],
        listed=bool(rows),
        pages={
            "first": filters.path(page="") if filters.page else "",
            "previous": filters.path(page=previous_token) if previous_token else "",
            "next": filters.path(page=next_token) if next_token else "",
        },
        zone=org_zone(viewer.time_zone).key,
        reviewer=reviewer,
        typed=typed or {},
        max_comment=post_review.MAX_COMMENT,
    )


@signed_in
async def list_posts(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's post groups: upcoming soonest first, then history newest first,
    filtered by `?status=&profile=&tag=&from=&to=`, paged by `?page=`."""
    filters = read_filters({name: request.args.get(name, "") for name in QUERY_KEYS})
    flash = GROUP_NOTICES.get(request.args.get("notice", "")) or notice(request)
    return await posts_page(request, viewer, filters, flash=flash)


ROUTES = (Route("GET", "/dashboard/posts", list_posts),)
