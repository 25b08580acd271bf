"""The endpoints the calendar's script (static/calendar.js) calls with the session cookie
(docs/dashboard.md, "Calendar", "The script's endpoints"): the posts of a range (`events`, GET),
the move of one post (`move`, POST, with the form's CSRF token), which calls the core's
UpdatePost as PATCH /v1/posts/{id} does, and the review of a post waiting for approval (`approve`,
`reject`, POST: ApprovePost and RejectPost, as the post's page calls them; post_review.py). /v1
stays for API keys. Every time crosses as a wall-clock time in the zone the calendar shows
(calendar_range.py)."""

from __future__ import annotations

from datetime import date, timedelta
from zoneinfo import ZoneInfo

from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse
from sanic.response import json as json_response

from facades.errors import ApiError
from facades.web import local_time, post_review
from facades.web.calendar_range import (
    SIGN_IN,
    STATUS_NAMES,
    calendar_posts,
    day_start,
    local,
    parse_day,
    wall_clock,
    zone_named,
)
from facades.web.pages import Route
from facades.web.scripted import NO_STORE, scripted

# What UpdatePost moves (core/posts/records.py EDITABLE): the others are not draggable.
MOVABLE = frozenset({"draft", "scheduled", "queued", "pending_approval"})
MAX_DAYS = 62  # the core's largest range (a month's six weeks, and some)


def _range_bound(request: Request, name: str) -> date:
    found = parse_day(request.args.get(name, ""))
    if found is None:
        raise ApiError("VALIDATION_ERROR", f"{name} must be a date (YYYY-MM-DD)", {"argument": name})
    return found


@scripted(sign_in=SIGN_IN, checks_csrf=False)
async def events(request: Request, authorization: str) -> HTTPResponse:
    """The posts of the days [`start`, `end`) (YYYY-MM-DD, at most 62 days) as the clocks of
    `zone` show them, filtered by `profile`, `tag` and `status`, and with a profile its free
    time slots: `{zone, posts: [{id, profile, platform, status, start, excerpt, movable}],
    free_slots: [start], truncated}` (a month of 2,000 posts is 2,000 of these: kept lean; a
    post waiting for approval is told by its status)."""
    zone = zone_named(request.args.get("zone", ""))
    first, end = _range_bound(request, "start"), _range_bound(request, "end")
    if not first < end <= first + timedelta(days=MAX_DAYS):
        raise ApiError("VALIDATION_ERROR", f"end must be 1 to {MAX_DAYS} days after start", {"argument": "end"})
    listed = await calendar_posts(
        request,
        authorization,
        day_start(first, zone),
        day_start(end, zone),
        profile=request.args.get("profile", "")[:64],
        tag=request.args.get("tag", "")[:64],
        status=request.args.get("status", ""),
    )
    posts = []
    for post in listed.posts:
        status = STATUS_NAMES[post.status]
        posts.append(
            {
                "id": post.id,
                "profile": post.profile,
                "platform": post.connector,
                "status": status,
                "start": local(wall_clock(post.schedule_time, zone)),
                "excerpt": post.excerpt,
                "movable": status in MOVABLE,
            }
        )
    free = [local(wall_clock(stamp, zone)) for stamp in listed.free_slots]
    body = {"zone": zone.key, "posts": posts, "free_slots": free, "truncated": listed.truncated}
    return json_response(body, headers=NO_STORE)


@scripted(sign_in=SIGN_IN)
async def move(request: Request, authorization: str, post_id: str) -> HTTPResponse:
    """Moves one post to `schedule_at` (a wall-clock time, "YYYY-MM-DDTHH:MM") in `time_zone`
    (the zone the calendar shows): the core's UpdatePost, as PATCH /v1/posts/{id} with
    `schedule_at`. Answers the post's new place in that zone (`{id, status, start, movable,
    schedule_at}`), or the refusal with its code (INVALID_POST_STATE, VALIDATION_ERROR,
    NOT_FOUND)."""
    if len(post_id) > 64:  # no post id is this long
        raise ApiError("NOT_FOUND", "no such post in this organization")
    form = request.form or {}
    name = (form.get("time_zone") or "").strip()[:64]
    instant = local_time.instant((form.get("schedule_at") or "").strip()[:40], name)
    zone = ZoneInfo(name)  # instant() knows it
    core = request.app.ctx.core
    result = await core.call(
        core.posts.UpdatePost,
        posts_pb2.UpdatePostRequest(post_id=post_id, schedule_at=instant),
        authorization=authorization,
    )
    return json_response(_placed(result.response, zone), headers=NO_STORE)


def _placed(post: posts_pb2.Post, zone: ZoneInfo) -> dict[str, object]:
    """A post's new place and state after a move or a review, in the zone the calendar shows."""
    status = STATUS_NAMES[post.status]
    return {
        "id": post.id,
        "status": status,
        "start": local(wall_clock(post.schedule_time, zone)),
        "movable": status in MOVABLE,
        "schedule_at": post.schedule_time.ToJsonString(),
    }


def _review_form(request: Request, post_id: str) -> tuple[post_review.Decision, ZoneInfo]:
    """The review dialog's form: `comment`, and for an approval `schedule_at` (a wall-clock time
    in `time_zone`, the zone the calendar shows) or `publish_now`."""
    if len(post_id) > 64:  # no post id is this long
        raise ApiError("NOT_FOUND", "no such post in this organization")
    zone = zone_named(((request.form or {}).get("time_zone") or "").strip()[:64], "time_zone")
    return post_review.decision(request.form, zone.key), zone


@scripted(sign_in=SIGN_IN)
async def approve(request: Request, authorization: str, post_id: str) -> HTTPResponse:
    """Approves a post waiting for approval (the core's ApprovePost, with the dialog's comment,
    and once its time has passed a new `schedule_at` or `publish_now`): the post's new place
    (`{id, status, start, movable, schedule_at, review}`), or the refusal with its code
    (FORBIDDEN, INVALID_POST_STATE, VALIDATION_ERROR naming `schedule_at`, …)."""
    choice, zone = _review_form(request, post_id)
    post = await post_review.approve(request, authorization, post_id, choice)
    return json_response(_placed(post, zone) | {"review": post_review.review_of(post, zone.key)}, headers=NO_STORE)


@scripted(sign_in=SIGN_IN)
async def reject(request: Request, authorization: str, post_id: str) -> HTTPResponse:
    """Rejects a post waiting for approval (the core's RejectPost, with the dialog's comment): it
    is a draft again; answered as `approve` is."""
    choice, zone = _review_form(request, post_id)
    post = await post_review.reject(request, authorization, post_id, choice)
    return json_response(_placed(post, zone) | {"review": post_review.review_of(post, zone.key)}, headers=NO_STORE)


ROUTES = (
    Route("GET", "/dashboard/calendar/events", events),
    Route("POST", "/dashboard/calendar/posts/<post_id:str>/move", move),
    Route("POST", "/dashboard/calendar/posts/<post_id:str>/approve", approve),
    Route("POST", "/dashboard/calendar/posts/<post_id:str>/reject", reject),
)
