"""Operations on posts."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2

from contract import post_requests as rq
from contract import post_resources as rs
from contract.operation import Operation, Tool
from contract.requests import rpc_path

# What creation checks, and so also scheduling a draft and editing a post.
_POST_CHECKS = (
    "VALIDATION_ERROR",
    "UNSUPPORTED_FEATURE",
    "RECONNECT_REQUIRED",
    "INVALID_MEDIA",
    "INVALID_MEDIA_COMBINATION",
)
_POST_LINKS = ("getPost", "updatePost", "cancelPost", "retryPost", "schedulePost", "listPostOutbox", "listPostEvents")

ROWS = (
    Operation(
        id="createPosts",
        method="POST",
        path="/v1/posts",
        summary="Publish or schedule one post per named profile",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CreatePosts"),
        request=rq.CreatePostsRequest,
        responses={201: rs.CreatedPosts},
        errors=(*_POST_CHECKS, "IDEMPOTENCY_KEY_REUSED", "PAYLOAD_TOO_LARGE", "EMAIL_NOT_VERIFIED"),
        description="All or nothing: every check passes for every profile, or nothing is created. Each "
        "destination's text limit is checked as that platform counts, for the content, every thread item and "
        "the first comment; nothing is ever truncated. A post costs credits when it goes out (one delivery, plus "
        "one per thread item; a first comment is free); at a balance below that it fails with failure_reason "
        "insufficient_credits and nothing is sent. `draft: true` creates drafts; `next_slot: true` takes each "
        "profile's next free time slot. `language` (BCP 47) goes where the platform has the field; `tiktok` sets a "
        "TikTok post's privacy and interactions. A field some destination does not use (a title on LinkedIn, "
        "`tiktok` on Bluesky…) is listed in `notices` (FIELD_IGNORED) and the posts are created without it.",
        links=("post_id", "$response.body#/posts/0/id", _POST_LINKS),
        tool=Tool(
            name="create_post",
            title="Create or schedule a post",
            description="Publish a post now, or schedule it with schedule_at, to one or more connected profiles "
            "(slugs from list_profiles) on a microblogging, photo-sharing, short-video or video platform: one "
            "post per profile, all or nothing. Each platform's own length limit and media rules are checked; "
            "nothing is truncated, an error names the profile, the count and the limit. Attach media_ids from "
            "create_media + confirm_media. Optional: `thread` (items published after the post as replies, on x, "
            "bluesky, threads, mastodon), `first_comment` (not on tiktok), `customizations` keyed by profile slug "
            "for a version per destination (generate_thread's drafts drop in as customizations[profile] = "
            "draft.post, or as `thread` for one destination), `draft: true` to keep posts aside, `next_slot: true` "
            "for each profile's next free time slot. `language`: the text's BCP 47 tag (e.g. en, pt-BR; default: "
            "each profile's default_language). `tiktok`: {privacy_level, disable_comment, disable_duet, "
            "disable_stitch, auto_add_music} for TikTok posts; left out, a TikTok post is SELF_ONLY (or the most "
            "private level offered) with interactions off and no music. Send an idempotency_key to retry safely: "
            "the same key and arguments answer the first result again. Returns the created posts with their ids "
            "and status, and `notices`: the fields a destination does not use (e.g. a title on LinkedIn). When "
            "the organization has agents' posts approved, they come back `pending_approval`: a person must "
            "approve them before they go out (you cannot); tell the user and follow them with get_post.",
            open_world=True,
        ),
    ),
    Operation(
        id="listPosts",
        method="GET",
        path="/v1/posts",
        summary="List posts, newest first",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListPosts"),
        request=rq.ListPostsRequest,
        responses={200: rs.PostList},
        errors=("VALIDATION_ERROR",),
        tool=Tool(
            name="list_posts",
            title="List posts",
            description="List the organization's posts, newest first, optionally only those of one profile "
            "(its slug, the handle list_profiles shows), one platform (`connector`), one status (draft, "
            "pending_approval, scheduled, queued, publishing, published, partially_published, failed, canceled), a schedule window or one post "
            "group (`group_id`: the posts one create_post call made). A failed post says why in "
            "failure_reason. Paged: pass next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getPost",
        method="GET",
        path="/v1/posts/{post_id}",
        summary="One post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "GetPost"),
        request=rq.GetPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_post",
            title="Get a post",
            description="Read one post by id: its status (draft, pending_approval: waiting for a person's "
            "approval, scheduled, queued, publishing, published, partially_published, failed, canceled), the "
            "review of a post that waited (approved, or rejected back to draft, with the reviewer's comment), the "
            "published URL once out, or why it failed.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updatePost",
        method="PATCH",
        path="/v1/posts/{post_id}",
        summary="Edit a draft, scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "UpdatePost"),
        request=rq.UpdatePostRequest,
        responses={200: rs.Post},
        errors=(*_POST_CHECKS, "NOT_FOUND", "INVALID_POST_STATE", "PAYLOAD_TOO_LARGE"),
        description="Only while the post is a draft, `scheduled` or `queued` (INVALID_POST_STATE otherwise); "
        "absent fields are kept. What changes is checked against the destination's rules (a draft's when it is "
        "scheduled). `thread` items are `{content, media_ids}`: output fields are refused.",
        tool=Tool(
            name="update_post",
            title="Edit a post",
            description="Change the content, schedule_at, media_ids, thread, first_comment, language or tiktok "
            "of a post that is still a draft, scheduled or queued; fields left out keep their value, media_ids and thread replace "
            'theirs ([] removes them), first_comment "" removes it. The platform\'s rules are checked again. A '
            "post that is publishing or done cannot change.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="cancelPost",
        method="DELETE",
        path="/v1/posts/{post_id}",
        summary="Cancel a draft, scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CancelPost"),
        request=rq.CancelPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        tool=Tool(
            name="cancel_post",
            title="Cancel a post",
            description="Cancel a post that is still a draft, scheduled or queued, so it never goes out. Returns the post, "
            "now `canceled`. A post that is publishing or done cannot be canceled (INVALID_POST_STATE).",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="retryPost",
        method="POST",
        path="/v1/posts/{post_id}/retry",
        summary="Re-queue a failed post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "RetryPost"),
        request=rq.RetryPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        tool=Tool(
            name="retry_post",
            title="Retry a failed post",
            description="Put a failed post back in the queue to publish now, e.g. after credits were topped up "
            "(failure_reason insufficient_credits). Only failed posts can be retried.",
            idempotent=True,
            open_world=True,
        ),
    ),
    Operation(
        id="schedulePost",
        method="POST",
        path="/v1/posts/{post_id}/schedule",
        summary="Take a draft out of draft: schedule it, give it its next time slot, or publish it now",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "SchedulePost"),
        request=rq.SchedulePostRequest,
        responses={200: rs.Post},
        errors=(*_POST_CHECKS, "NOT_FOUND", "INVALID_POST_STATE", "EMAIL_NOT_VERIFIED"),
        description="Every check of creation runs first (fields, the destination's limits, media, never-publish "
        "phrases, the plan). `schedule_at` or `next_slot: true`; neither publishes now. Credits are charged at "
        "delivery, as always. Only drafts (INVALID_POST_STATE otherwise).",
        tool=Tool(
            name="schedule_post",
            title="Schedule a draft",
            description="Publish or schedule a draft made with create_post(draft=true): schedule_at, or next_slot "
            "true for the profile's next free time slot, or neither to publish now. The platform's rules are "
            "checked now; the post is charged when it goes out. Returns the post.",
            open_world=True,
        ),
    ),
    Operation(
        id="listPostOutbox",
        method="GET",
        path="/v1/posts/{post_id}/outbox",
        summary="What was delivered for a post (sandbox: the exact platform requests)",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListOutboxEntries"),
        request=rq.ListOutboxRequest,
        responses={200: rs.OutboxEntries},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="listPostEvents",
        method="GET",
        path="/v1/posts/{post_id}/events",
        summary="A post's history: created, edited, claimed, each attempt, published or failed",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListPostEvents"),
        request=rq.ListPostEventsRequest,
        responses={200: rs.PostEvents},
        errors=("NOT_FOUND", "VALIDATION_ERROR"),
        description="Every step of the post, oldest first (`order=newest` for newest first), each with its time "
        "and the facts of its kind in `detail`: the changes made to it (created, edited, rescheduled, scheduled, "
        "canceled, retried, with the id of the request that made them), each claim by a worker, each attempt that "
        "failed (the error's class and message, whether it is retried and when), each thread item's and the first "
        "comment's outcome, and how it ended (published, partially_published, failed with its reason).",
        tool=Tool(
            name="list_post_events",
            title="List a post's history",
            description="Read what happened to one post, step by step: created, edited, rescheduled, canceled, "
            "retried, each delivery attempt (claimed; attempt_failed with the error's class, the platform's message, "
            "will_retry and next_attempt_at), each thread item or first comment (part_published, part_failed), "
            "and the outcome (published, partially_published, failed with its failure reason). Oldest first; "
            "order=newest to see the latest steps first. Use it to explain why a post failed or is late.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getPostGroup",
        method="GET",
        path="/v1/post-groups/{group_id}",
        summary="A post group: the posts one creating request made",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "GetPostGroup"),
        request=rq.GetPostGroupRequest,
        responses={200: rs.PostGroup},
        errors=("NOT_FOUND",),
        description="Every post of the group (one per profile the request named), canceled ones too, in creation "
        "order. Each post carries its `group_id`.",
        tool=Tool(
            name="get_post_group",
            title="Get a post group",
            description="Read a post group: every post one create_post call made (one per profile), by the "
            "group_id each of those posts carries. Answers {id, created_at, posts}, each post with its status "
            "(draft, pending_approval, scheduled, queued, publishing, published, partially_published, failed, "
            "canceled), schedule, "
            "published URL or failure_reason: follow a post to several destinations as one.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="reschedulePostGroup",
        method="POST",
        path="/v1/post-groups/{group_id}/reschedule",
        summary="Move every post of a group to a new time, all or nothing",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ReschedulePostGroup"),
        request=rq.ReschedulePostGroupRequest,
        responses={200: rs.PostGroup},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        description="One transaction: each post that is not canceled is moved as PATCH `{schedule_at}` moves it "
        "(its rules, its time slot, a `post.updated` event each); drafts stay drafts. If any post refuses (one "
        "publishing or done: INVALID_POST_STATE; a time in the past: VALIDATION_ERROR), nothing changes and the "
        "error names it. A group whose every post is canceled is INVALID_POST_STATE. Answers the group.",
        tool=Tool(
            name="reschedule_post_group",
            title="Reschedule a post group",
            description="Move every post of a group (the posts one create_post call made; group_id is on each "
            "of them) to a new schedule_at in one step, all or nothing: each post is checked as update_post "
            "checks it, and if one cannot move (it is publishing or already out: INVALID_POST_STATE; the time is "
            "in the past: VALIDATION_ERROR) nothing changes and the error names that post. Canceled posts are "
            "left out; drafts keep being drafts with the new time. Returns the group with its posts.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="cancelPostGroup",
        method="POST",
        path="/v1/post-groups/{group_id}/cancel",
        summary="Cancel every post of a group, all or nothing",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CancelPostGroup"),
        request=rq.CancelPostGroupRequest,
        responses={200: rs.PostGroup},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        description="One transaction: each post that is not canceled yet is canceled as DELETE cancels it "
        "(refunds, freed time slots, a `post.canceled` event each). If any post is publishing or done, nothing "
        "changes (INVALID_POST_STATE naming it). A group already all canceled is answered as it is. Answers the "
        "group.",
        tool=Tool(
            name="cancel_post_group",
            title="Cancel a post group",
            description="Cancel every post of a group (the posts one create_post call made; group_id is on each "
            "of them) so none of them goes out, all or nothing: if one is already publishing or out, nothing is "
            "canceled and the error (INVALID_POST_STATE) names that post. Posts canceled before are left as they "
            "are, and canceling a group again answers it unchanged. Returns the group with its posts, now "
            "`canceled`.",
            destructive=True,
            idempotent=True,
        ),
    ),
)
