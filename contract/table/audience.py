"""A profile's audience's operations (docs/analytics.md): its followers over time, its best times,
and queue slots suggested from them."""

from __future__ import annotations

from herald.analytics.v1 import audience_pb2

from contract import audience
from contract.operation import Operation, Tool
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="getProfileMetrics",
        method="GET",
        path="/v1/profiles/{slug}/metrics",
        summary="A profile's followers: the latest reading and their history",
        tag="analytics",
        rpc=rpc_path(audience_pb2, "AudienceService", "GetProfileMetrics"),
        request=audience.GetProfileMetricsRequest,
        responses={200: audience.ProfileMetrics},
        errors=("VALIDATION_ERROR", "NOT_FOUND"),
        description="The workers read each profile's followers once a day. `followers` is the latest reading "
        "(null before the first); `history` the readings in [from, to), oldest first: the last 30 days unless "
        "`from` and `to` (ISO 8601 instants with an offset) say otherwise, at most 400 days. Reading costs no "
        "credits.",
    ),
    Operation(
        id="getBestTimes",
        method="GET",
        path="/v1/profiles/{slug}/best-times",
        summary="When a profile's posts do best, by weekday and hour",
        tag="analytics",
        rpc=rpc_path(audience_pb2, "AudienceService", "GetBestTimes"),
        request=audience.GetBestTimesRequest,
        responses={200: audience.BestTimes},
        errors=("NOT_FOUND",),
        description="Each of the profile's posts of the last year is counted at its latest reading: engagement "
        "(likes + reposts + replies + quotes + bookmarks + shares, those the platform gives) by the weekday and "
        "hour it went out, in the organization's time zone; a cell's value is its posts' mean. With fewer than "
        "`minimum_sample` posts read the answer is the platform's usual best hours, `basis` `default`, the "
        "history's counts kept beside them. `grid` is the whole week (168 cells, Monday 00:00 first) for a "
        "heatmap; `top` its best cells.",
        tool=Tool(
            name="get_best_times",
            title="Get a profile's best times to post",
            description="Find when a profile's posts get the most engagement: the best weekday-and-hour slots (top) "
            "and the whole week's 7x24 grid, in the organization's time zone. basis says whether they come from "
            "the profile's own posts (history, with sample_size posts read) or, below minimum_sample, from the "
            "platform's usual best hours (default). Use it to choose schedule_at for create_post, or slots for "
            "set_profile_slots.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="suggestQueueSlots",
        method="POST",
        path="/v1/profiles/{slug}/queue/suggest",
        summary="Weekly queue slots from a profile's best times, proposed or saved",
        tag="analytics",
        rpc=rpc_path(audience_pb2, "AudienceService", "SuggestQueueSlots"),
        request=audience.SuggestQueueSlotsRequest,
        responses={200: audience.QueueSuggestion},
        errors=("VALIDATION_ERROR", "NOT_FOUND", "FORBIDDEN"),
        description="Takes the best `count` hours of the profile's best times (at most ceil(count / 7) on one "
        "weekday), as weekly slots in the organization's time zone. Without `apply` it only proposes (any role). "
        "With `apply: true` it saves them as the profile's time slots, replacing its table as "
        "PUT /v1/profiles/{slug}/slots does, which needs the publish permission (FORBIDDEN otherwise) and, for "
        "agents, posts:write; posts created with `next_slot` then take them.",
        tool=Tool(
            name="suggest_queue_slots",
            title="Suggest a profile's queue slots from its best times",
            description="Propose weekly publishing slots for a profile from its best times: the best count hours "
            "(1-21, default 7; at most ceil(count / 7) on one weekday), in the organization's time zone, with the "
            "basis they come from. Nothing is saved unless apply is true: then they replace the profile's slot "
            "table (as set_profile_slots does; needs posts:write), and create_post with next_slot takes them.",
            destructive=True,
            idempotent=True,
        ),
    ),
)
