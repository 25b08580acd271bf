"""The organization's posts in the dashboard: newest first, filtered by status or profile, each
with where it went (the platform's post, linked) or why it did not."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.post_links import post_page_path, sandbox_anchor
from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, page_token, pager, signed_in, when
from facades.web.session import Viewer

POSTS_PER_PAGE = 25
STATUSES = ("draft", "scheduled", "queued", "publishing", "published", "partially_published", "failed", "canceled")
EXCERPT = 140


def _status(post: posts_pb2.Post) -> str:
    return posts_pb2.PostStatus.Name(post.status).removeprefix("POST_STATUS_").lower()


def _row(post: posts_pb2.Post, zone: str) -> dict[str, object]:
    text = " ".join(post.content.split())
    return {
        "id": post.id,
        "profile": post.profile,
        "platform": post.connector,
        "excerpt": text if len(text) <= EXCERPT else f"{text[: EXCERPT - 1]}…",
        "status": _status(post),
        "scheduled": when(post.schedule_time, zone, ""),
        "published": when(post.publish_time, zone, ""),
        "url": _outcome_link(post),
        "platform_post_id": post.platform_post_id,
        "failure": post.failure_reason,
        "failure_detail": post.failure_detail or post.platform_error,
        "attempts": post.attempts,
        "parts": _parts(post),
    }


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


@signed_in
async def list_posts(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's posts, newest first, filtered by `?status=` and `?profile=`."""
    core = request.app.ctx.core
    status = request.args.get("status", "")
    status = status if status in STATUSES else ""
    profile = request.args.get("profile", "")[:64]
    token = page_token(request)
    context: dict[str, object] = {"statuses": STATUSES, "filters": {"status": status, "profile": profile}}
    try:
        result = await core.call(
            core.posts.ListPosts,
            posts_pb2.ListPostsRequest(status=status, profile=profile, page_size=POSTS_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "NOT_FOUND"):
            raise
        return await dashboard_page(
            request,
            viewer,
            "posts.html",
            "posts",
            status=error.http_status,
            posts=[],
            error=error.message,
            **context,
        )
    return await dashboard_page(
        request,
        viewer,
        "posts.html",
        "posts",
        posts=[_row(p, viewer.time_zone) for p in result.response.posts],
        **pager("/dashboard/posts", token, result.response.next_page_token, status=status, profile=profile),
        **context,
    )


ROUTES = (Route("GET", "/dashboard/posts", list_posts),)
