"""Every response shape's `from_proto` renders exactly its model: the JSON the surfaces answer
with validates strictly against the model whose schema openapi.json and the MCP output schemas
publish, with every required field and no other. Pure: no process is started."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from herald.analytics.v1 import analytics_pb2, audience_pb2
from herald.audit.v1 import audit_pb2
from herald.brand.v1 import brand_pb2
from herald.connections.v1 import connections_pb2
from herald.credits.v1 import credits_pb2
from herald.generate.v1 import generate_pb2
from herald.identity.v1 import accounts_pb2, identity_pb2, members_pb2
from herald.media.v1 import media_pb2
from herald.notes.v1 import notes_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from herald.stock.v1 import stock_pb2
from herald.webhooks.v1 import webhooks_pb2
from jsonschema import Draft202012Validator

from contract import analytics, analytics_lists, audit, brand, members, notes, organization, preview, stock, writing
from contract import audience as aud
from contract import connections as conn
from contract import generate as gen
from contract import media_resources as mr
from contract import post_resources as pr
from contract import resources as rs
from contract import webhooks as wh
from contract.base import Response, timestamp
from contract.binding import Contract
from contract.catalog import Catalog
from contract.media_requests import PresignRequest
from contract.operations import OPERATIONS
from core.catalog.service import platform_message
from core.server import catalog

NOW = Timestamp(seconds=1_795_000_000, nanos=123_456_789)
MEMBER = members_pb2.Member(
    user_id="usr_1", email="ann@example.com", role="editor", join_time=NOW, is_caller=True, profile_tags=["client-a"]
)
INVITATION = members_pb2.Invitation(
    id="inv_1", email="bo@example.com", role="viewer", invited_by="ann@example.com", create_time=NOW,
    expire_time=NOW, state="pending",
)  # fmt: skip
COMMENT = notes_pb2.Comment(
    id="cmt_1", group_id="grp_1", post_id="pst_1", author_id="usr_1", author_email="ann@example.com",
    body="@bo@example.com look", mentions=["bo@example.com"], create_time=NOW,
)  # fmt: skip
NOTIFICATION = notes_pb2.Notification(
    id="ntf_1", kind="mentioned", text="ann mentioned you", subject_id="cmt_1", link="/dashboard/posts/pst_1",
    create_time=NOW,
)  # fmt: skip
PROFILE = profiles_pb2.Profile(
    id="prf_1", slug="acme-x", connector="x", display_name="Acme", tags=["eu"], create_time=NOW
)
CONNECTED = profiles_pb2.Profile(
    id="prf_2",
    slug="acme-masto",
    connector="mastodon",
    display_name="Acme",
    create_time=NOW,
    connection=profiles_pb2.ProfileConnection(
        status="connected",
        platform_account_id="1",
        handle="acme",
        avatar_url="https://fosstodon.org/a.png",
        instance_url="https://fosstodon.org",
        scopes=["write:statuses", "write:media"],
        connect_time=NOW,
    ),
)
POST = posts_pb2.Post(
    id="pst_1",
    group_id="grp_1",
    profile="acme-x",
    connector="x",
    content="hi",
    status=posts_pb2.POST_STATUS_QUEUED,
    schedule_time=NOW,
    create_time=NOW,
    update_time=NOW,
    post_type="post",
)
CREDIT = stock_pb2.Attribution(
    photographer="Ana Ruiz",
    photographer_url="https://unsplash.com/@ana?utm_source=herald&utm_medium=referral",
    source="Unsplash",
    source_url="https://unsplash.com/?utm_source=herald&utm_medium=referral",
)
PUBLISHED = posts_pb2.Post()
PUBLISHED.CopyFrom(POST)
PUBLISHED.status = posts_pb2.POST_STATUS_FAILED
PUBLISHED.failure_reason = "insufficient_credits"
PUBLISHED.title = "A title"
PUBLISHED.publish_time.CopyFrom(NOW)
PUBLISHED.media_ids.append("med_1")
THREADED = posts_pb2.Post()
THREADED.CopyFrom(POST)
THREADED.status = posts_pb2.POST_STATUS_PARTIALLY_PUBLISHED
THREADED.platform_post_id, THREADED.platform_url = "1", "https://x.com/acme/status/1"
THREADED.thread.add(content="two", status="published", platform_post_id="2", platform_url="https://x.com/a/status/2")
THREADED.thread.add(content="three", media_ids=["med_1"], status="failed")
THREADED.first_comment.CopyFrom(posts_pb2.PostPart(content="first!", status="skipped"))
DRAFT = posts_pb2.Post()
DRAFT.CopyFrom(POST)
DRAFT.status = posts_pb2.POST_STATUS_DRAFT
SLOTS = profiles_pb2.ProfileSlots(timezone="Europe/Paris", slots=[profiles_pb2.TimeSlot(day="mon", time="09:00")])
MEDIA = media_pb2.Media(
    media_id="med_1",
    type="image",
    mime_type="image/png",
    size_bytes=10,
    name="a.png",
    create_time=NOW,
    status="pending",
)
CONFIRMED = media_pb2.Media()
CONFIRMED.CopyFrom(MEDIA)
CONFIRMED.status, CONFIRMED.content_hash, CONFIRMED.width, CONFIRMED.height = "confirmed", "ab" * 32, 4, 3
ENTRY = credits_pb2.LedgerEntry(
    id="led_1", delta=-1, balance_after=9, reason="post_delivery", reference="pst_1", create_time=NOW
)
OUTBOX = posts_pb2.OutboxEntry(
    id="obx_1", post_id="pst_1", connector="x", mode="sandbox", requests_json='[{"method": "POST"}]', create_time=NOW
)

VOICE = brand_pb2.BrandVoice(
    profile="acme-x",
    version=2,
    profile_version=1,
    description="Plain.",
    tone=["warm"],
    never_publish=["cheap"],
    preferred_terms=[brand_pb2.PreferredTerm(use="customers", instead_of="users")],
    emoji=brand_pb2.EMOJI_HABIT_NONE,
    hashtags=brand_pb2.HASHTAG_HABIT_MANY,
    signature_hashtags=["#acme"],
    update_time=NOW,
    updated_by="a@example.com",
)

REPORT = posts_pb2.ValidatePostsResponse(
    valid=False,
    problems=[posts_pb2.Problem(code="INVALID_MEDIA", message="no such media")],
    profiles=[
        posts_pb2.ProfileCheck(
            profile="acme-x", connector="x", post_type="post", valid=True, length=5, max_length=280, unit="u"
        ),
        posts_pb2.ProfileCheck(
            profile="nope", problems=[posts_pb2.Problem(code="VALIDATION_ERROR", message="unknown")]
        ),
    ],
    credits_required=2,
    credit_balance=1,
)
PREVIEW = posts_pb2.PreviewPostsResponse(
    valid=False,
    deliverable=False,
    credits_required=2,
    credit_balance=10,
    schedule_time=NOW,
    destinations=[
        posts_pb2.DestinationPreview(
            profile="acme-yt",
            connector="youtube",
            platform="YouTube",
            display_name="Acme",
            post_type="video",
            valid=True,
            warnings=[posts_pb2.Problem(code="NEAR_LIMIT", message="close")],
            parts=[
                posts_pb2.TextPreview(role="title", text="T", length=1, max_length=100, unit="characters"),
                posts_pb2.TextPreview(
                    role="content",
                    text="d",
                    length=1,
                    max_length=5000,
                    unit="bytes",
                    media=[posts_pb2.MediaPreview(media_id="med_1", kind="video", mime_type="video/mp4", size_bytes=9)],
                ),
            ],
        ),
        posts_pb2.DestinationPreview(
            profile="nope", problems=[posts_pb2.Problem(code="VALIDATION_ERROR", message="?")]
        ),
    ],
)
LIMITS = profiles_pb2.GetDestinationLimitsResponse(
    destinations=[
        profiles_pb2.DestinationLimits(profile=slug, display_name=slug, platform=platform_message(key))
        for slug, key in (("acme-x", "x"), ("acme-yt", "youtube"), ("acme-ig", "instagram"))
    ]
)

RUN = generate_pb2.GenerateRun(
    id="run_1",
    tool="generate_thread",
    status=generate_pb2.RUN_STATUS_READY,
    backend="builtin",
    output=generate_pb2.GenerateOutput(
        drafts=[
            generate_pb2.Draft(
                profile="acme-x",
                connector="x",
                variant=1,
                parts=[generate_pb2.Part(text="a 1/2", length=5, max_length=280, unit="u")] * 2,
                fits=True,
            )
        ],
        hashtags=["#a"],
        notes=["fewer"],
    ),
    create_time=NOW,
    finish_time=NOW,
)
FAILED_RUN = generate_pb2.GenerateRun(
    id="run_2",
    tool="generate_post",
    status=generate_pb2.RUN_STATUS_FAILED,
    backend="openai",
    error=generate_pb2.RunError(code="GENERATION_TIMEOUT", message="slow"),
    create_time=NOW,
    finish_time=NOW,
)

READING = analytics_pb2.MetricSnapshot(metrics={"likes": 3, "reposts": 1}, collect_time=NOW, source="sandbox")

FOLLOWERS = audience_pb2.FollowersReading(followers=1200, collect_time=NOW, source="sandbox")
BEST_CELL = audience_pb2.BestTimeCell(day="tue", hour=9, posts=10, engagement=100.5, score=1.0)
AUDIENCE_SAMPLES: list[tuple[type[Response], Any]] = [
    (
        aud.ProfileMetrics,
        audience_pb2.ProfileMetrics(
            slug="acme-x", latest=FOLLOWERS, history=[FOLLOWERS], start_time=NOW, end_time=NOW, next_read_time=NOW
        ),
    ),
    (aud.ProfileMetrics, audience_pb2.ProfileMetrics(slug="acme-x", start_time=NOW, end_time=NOW)),
    (
        aud.BestTimes,
        audience_pb2.BestTimes(
            slug="acme-x",
            connector="x",
            time_zone="Europe/Paris",
            basis="history",
            sample_size=24,
            minimum_sample=20,
            top=[BEST_CELL],
            grid=[BEST_CELL, audience_pb2.BestTimeCell(day="mon", hour=0)],
        ),
    ),
    (
        aud.QueueSuggestion,
        audience_pb2.QueueSuggestion(
            slug="acme-x",
            time_zone="UTC",
            basis="default",
            slots=[audience_pb2.SuggestedSlot(day="tue", time="09:00")],
            applied=True,
        ),
    ),
]

ANALYTICS_POST = analytics_pb2.PostAnalytics(
    post_id="pst_1", profile="acme-x", connector="x", content="Hello", platform_url="https://x.com/a/status/1",
    publish_time=NOW, metrics={"likes": 3, "reposts": 1}, engagement=4, collect_time=NOW, source="platform",
)  # fmt: skip
GROUP = analytics_pb2.AnalyticsGroup(key="2026-11-16", posts=2, metrics={"likes": 5}, engagement=5)
SUMMARY_SAMPLES: list[tuple[type[Response], Any]] = [
    (
        analytics_lists.PostAnalyticsList,
        analytics_pb2.ListPostAnalyticsResponse(
            posts=[ANALYTICS_POST, analytics_pb2.PostAnalytics(post_id="pst_2", publish_time=NOW)],
            next_page_token="t",
            start_time=NOW,
            end_time=NOW,
        ),
    ),
    (analytics_lists.PostAnalyticsList, analytics_pb2.ListPostAnalyticsResponse(start_time=NOW, end_time=NOW)),
    (
        analytics_lists.AnalyticsSummary,
        analytics_pb2.AnalyticsSummary(
            group_by="week",
            time_zone="Europe/Paris",
            start_time=NOW,
            end_time=NOW,
            groups=[GROUP, analytics_pb2.AnalyticsGroup(key="2026-11-23", posts=1)],
            total=GROUP,
        ),
    ),  # fmt: skip
    (
        analytics_lists.AnalyticsSummary,
        analytics_pb2.AnalyticsSummary(
            group_by="day", time_zone="UTC", start_time=NOW, end_time=NOW, total=analytics_pb2.AnalyticsGroup()
        ),
    ),
    (
        analytics_lists.RecentPostList,
        posts_pb2.ListPostsResponse(posts=[PUBLISHED, POST], next_page_token="t"),
    ),
]

SAMPLES: list[tuple[type[Response], Any]] = [
    *SUMMARY_SAMPLES,
    *AUDIENCE_SAMPLES,
    (
        analytics.PostMetrics,
        analytics_pb2.PostMetrics(
            post_id="pst_1",
            latest=READING,
            history=[READING],
            thread=[analytics_pb2.ThreadItemMetrics(position=0, latest=READING)],
            next_read_time=NOW,
            tracking="scheduled",
        ),
    ),
    (analytics.PostMetrics, analytics_pb2.PostMetrics(post_id="pst_1", tracking="not_published")),
    (analytics.PostMetrics, analytics_pb2.PostMetrics(post_id="pst_1", latest=READING, tracking="gone")),
    (analytics.MetricsRefresh, analytics_pb2.RefreshPostMetricsResponse(post_id="pst_1", queued=True)),
    (gen.GenerateRun, RUN),
    (gen.GenerateRun, FAILED_RUN),
    (
        gen.GenerateRun,
        generate_pb2.GenerateRun(
            id="run_3", tool="generate_post", status=generate_pb2.RUN_STATUS_QUEUED, create_time=NOW
        ),
    ),
    (writing.ValidationReport, REPORT),
    (preview.PostPreview, PREVIEW),
    (writing.DestinationLimitsList, LIMITS),
    (writing.SingleDestinationLimits, LIMITS),
    (brand.BrandVoice, VOICE),
    (brand.BrandVoice, brand_pb2.BrandVoice()),
    (rs.Profile, PROFILE),
    (rs.Profile, CONNECTED),
    (
        organization.Organization,
        accounts_pb2.OrganizationSettings(
            id="org_1", slug="acme", name="Acme", time_zone="Europe/Paris", create_time=NOW
        ),
    ),
    (
        conn.PlatformList,
        connections_pb2.ListPlatformsResponse(
            platforms=[
                connections_pb2.ConnectablePlatform(platform="x", method="oauth", available=False),
                connections_pb2.ConnectablePlatform(platform="mastodon", method="instance_oauth", available=True),
            ],
            publish_mode="live",
        ),
    ),
    (
        conn.ConnectionStart,
        connections_pb2.StartConnectionResponse(
            authorization_url="https://x.com/i/oauth2/authorize?x=1", expire_time=NOW
        ),
    ),
    (conn.Disconnected, connections_pb2.DisconnectProfileResponse(profile=CONNECTED, revoked=True)),
    (
        stock.StockSearch,
        stock_pb2.SearchStockResponse(
            provider="stock_b",
            preset="square",
            query="coffee",
            results=[
                stock_pb2.StockResult(
                    source_ref="abc",
                    provider="stock_b",
                    preview_url="https://images.unsplash.com/photo-1?w=400",
                    mime_type="image/jpeg",
                    width=4000,
                    height=3000,
                    alt_text="A cup",
                    attribution=CREDIT,
                ),
                stock_pb2.StockResult(source_ref="7", provider="stock_a", mime_type="image/jpeg", width=1, height=1),
            ],
        ),
    ),
    (
        stock.Sourcing,
        stock_pb2.SourceMediaResponse(
            kind="media",
            status="ready",
            requested_count=3,
            delivered_count=2,
            media_ids=["med_1", "med_2"],
            media=[
                stock_pb2.SourcedMedia(
                    media_id="med_1", alt_text="A", provider="stock_b", source_ref="a", attribution=CREDIT
                ),
                stock_pb2.SourcedMedia(media_id="med_2", alt_text="B", provider="stock_b", source_ref="b"),
            ],
            failures=[stock_pb2.SourceFailure(source_ref="c", code="NOT_AN_IMAGE", message="not an image")],
        ),
    ),
    (
        stock.Sourcing,
        stock_pb2.SourceMediaResponse(
            kind="run",
            run_id="srn_1",
            status="failed",
            requested_count=2,
            error=stock_pb2.SourcingError(code="SOURCE_FAILED", message="interrupted"),
        ),
    ),
    (rs.ProfileList, profiles_pb2.ListProfilesResponse(profiles=[PROFILE])),
    (rs.ProfileList, profiles_pb2.ListProfilesResponse(profiles=[PROFILE], next_page_token="next")),
    (pr.Post, POST),
    (pr.Post, PUBLISHED),
    (pr.Post, THREADED),
    (pr.Post, DRAFT),
    (rs.ProfileSlots, SLOTS),
    (rs.ProfileSlots, profiles_pb2.ProfileSlots(timezone="UTC")),
    (
        pr.OutboxEntries,
        posts_pb2.ListOutboxEntriesResponse(
            entries=[
                posts_pb2.OutboxEntry(
                    id="obx_2",
                    post_id="pst_1",
                    connector="x",
                    mode="sandbox",
                    requests_json="[]",
                    create_time=NOW,
                    part="thread",
                    position=1,
                )
            ]
        ),
    ),
    (pr.PostList, posts_pb2.ListPostsResponse(posts=[POST, PUBLISHED], next_page_token="n")),
    (pr.CreatedPosts, posts_pb2.CreatePostsResponse(posts=[POST])),
    (pr.PostGroup, posts_pb2.PostGroup(id="grp_1", create_time=NOW, posts=[POST, DRAFT])),
    (pr.OutboxEntries, posts_pb2.ListOutboxEntriesResponse(entries=[OUTBOX])),
    (
        pr.PostEvents,
        posts_pb2.ListPostEventsResponse(
            events=[
                posts_pb2.PostEvent(
                    id="pev_1", post_id="pst_1", kind="created", event_time=NOW, status="scheduled", schedule_time=NOW
                ),
                posts_pb2.PostEvent(id="pev_2", post_id="pst_1", kind="edited", event_time=NOW, fields=["content"]),
                posts_pb2.PostEvent(
                    id="pev_3",
                    post_id="pst_1",
                    kind="attempt_failed",
                    event_time=NOW,
                    attempt=1,
                    reason="retryable",
                    error="503",
                    will_retry=True,
                    next_attempt_time=NOW,
                    part="thread",
                    position=0,
                ),
                posts_pb2.PostEvent(
                    id="pev_4", post_id="pst_1", kind="claimed", event_time=NOW, attempt=2, recovered=True
                ),
                posts_pb2.PostEvent(
                    id="pev_5",
                    post_id="pst_1",
                    kind="published",
                    event_time=NOW,
                    attempt=2,
                    platform_post_id="1",
                    request_id="req_1",
                ),
            ],
            next_page_token="t",
        ),
    ),
    (mr.Media, MEDIA),
    (mr.Media, CONFIRMED),
    (mr.MediaList, media_pb2.ListMediaResponse(media=[CONFIRMED])),
    (mr.PresignResult, media_pb2.Upload(media_id="med_1", upload_url="http://s/u", expires_in=3600)),
    (mr.PresignDuplicate, media_pb2.Upload(media_id="med_1", duplicate=True)),
    (rs.LedgerEntry, ENTRY),
    (rs.LedgerPage, credits_pb2.ListLedgerEntriesResponse(entries=[ENTRY], next_page_token="t")),
    (
        rs.CreditAccount,
        credits_pb2.CreditAccount(
            organization="acme",
            balance=9,
            plan=identity_pb2.PLAN_TRIALING,
            low_credit_threshold=50,
            recent_entries=[ENTRY],
        ),
    ),
    (
        wh.Webhook,
        webhooks_pb2.Webhook(id="whk_1", url="https://h.example/x", events=["*"], enabled=True, created_at=NOW),
    ),
    (
        wh.Webhook,
        webhooks_pb2.Webhook(
            id="whk_2",
            url="https://h.example/x",
            events=["post.failed", "post.published"],
            description="ops",
            enabled=False,
            disabled_reason="gone",
            secret="whsec_c2VjcmV0",
            created_at=NOW,
        ),
    ),
    (
        wh.WebhookList,
        webhooks_pb2.ListWebhooksResponse(
            webhooks=[webhooks_pb2.Webhook(id="whk_1", url="https://h.example/x", events=["*"], created_at=NOW)],
            next_page_token="t",
        ),
    ),
    (wh.WebhookSecret, webhooks_pb2.WebhookSecret(secret="whsec_c2VjcmV0", previous_valid_until=NOW)),
    (wh.QueuedEvent, webhooks_pb2.TestWebhookResponse(event_id="evt_1")),
    (
        wh.WebhookDeliveryList,
        webhooks_pb2.ListWebhookDeliveriesResponse(
            deliveries=[
                webhooks_pb2.WebhookDelivery(
                    id="wat_2",
                    event_id="evt_1",
                    type="webhook.test",
                    attempt=2,
                    status_code=200,
                    duration_ms=12,
                    response_body="ok",
                    delivered_at=NOW,
                ),
                webhooks_pb2.WebhookDelivery(
                    id="wat_1",
                    event_id="evt_1",
                    type="webhook.test",
                    attempt=1,
                    error="HTTP 500",
                    status_code=500,
                    delivered_at=NOW,
                    next_attempt_at=NOW,
                ),
            ],
            next_page_token="t",
        ),
    ),
    (
        wh.WebhookEventTypes,
        webhooks_pb2.ListWebhookEventTypesResponse(
            event_types=[webhooks_pb2.WebhookEventType(type="post.published", description="A post went out.")]
        ),
    ),
    # Teams (docs/teams.md): the audit log, members, invitations, comments and notifications.
    (
        audit.AuditEventList,
        audit_pb2.ListAuditEventsResponse(
            events=[
                audit_pb2.AuditEvent(
                    id="aud_1",
                    event_time=NOW,
                    actor_user_id="usr_1",
                    actor_email="ann@example.com",
                    via="api_key",
                    credential_id="key_1",
                    credential_name="svc_ab12",
                    method="posts.CreatePosts",
                    resource_kind="post_group",
                    resource_id="grp_1",
                    request_id="req_1",
                ),
                audit_pb2.AuditEvent(
                    id="aud_2", event_time=NOW, actor_user_id="usr_2", via="dashboard", method="identity.UpdateMember"
                ),
            ],
            next_page_token="next",
        ),
    ),
    (members.Member, MEMBER),
    (members.MemberList, members_pb2.ListMembersResponse(members=[MEMBER])),
    (members.Invitation, INVITATION),
    (members.InvitationList, members_pb2.ListInvitationsResponse(invitations=[INVITATION])),
    (
        members.CreatedInvitation,
        members_pb2.CreatedInvitation(
            invitation=INVITATION, url="https://herald.example/invitations/hinv_x", emailed=True
        ),
    ),
    (notes.Comment, COMMENT),
    (
        notes.Comment,
        notes_pb2.Comment(id="cmt_2", group_id="grp_1", author_email="a@example.com", body="all", create_time=NOW),
    ),
    (notes.CommentList, notes_pb2.ListCommentsResponse(comments=[COMMENT])),
    (notes.NotificationList, notes_pb2.ListNotificationsResponse(notifications=[NOTIFICATION], unread_count=1)),
    (
        notes.NotificationList,
        notes_pb2.ListNotificationsResponse(notifications=[NOTIFICATION], next_page_token="tok", unread_count=0),
    ),
    (notes.UnreadCount, notes_pb2.MarkNotificationsReadResponse(unread_count=0)),
    (
        notes.NotificationSettings,
        notes_pb2.NotificationSettings(
            channels=[notes_pb2.NotificationChannel(kind="mentioned", description="d", inbox=True, email=False)],
            mail_configured=False,
        ),
    ),
]


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """The model's schema with every object closed (the shapes are exact)."""
    if isinstance(schema, dict):
        out = {k: _closed(v) for k, v in schema.items()}
        if out.get("type") == "object" and "properties" in out:
            out.setdefault("additionalProperties", False)
        return out
    if isinstance(schema, list):
        return [_closed(v) for v in schema]
    return schema


@pytest.fixture(scope="module")
def contract() -> Contract:
    return Contract(Catalog(catalog()))


def test_every_response_model_of_the_table_has_a_sample() -> None:
    models = {r for op in OPERATIONS for r in op.responses.values()}
    assert models <= {model for model, _ in SAMPLES}, models - {model for model, _ in SAMPLES}


@pytest.mark.parametrize(("model", "message"), SAMPLES, ids=lambda v: getattr(v, "__name__", ""))
def test_rendering_is_exactly_the_model(contract: Contract, model: type[Response], message: Any) -> None:
    rendered = model.from_proto(message)
    json.dumps(rendered)  # JSON-ready as it is
    bound = contract.model(model)
    bound.model_validate(rendered, strict=True)
    schema = _closed(contract.json_schema(model, mode="serialization"))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(schema).iter_errors(rendered)]
    assert not errors, errors
    if not any(isinstance(v, list) for v in rendered.values()):
        assert set(rendered) == set(model.model_fields), set(model.model_fields) ^ set(rendered)


def test_timestamps_are_utc_with_milliseconds() -> None:
    assert timestamp(NOW) == "2026-11-18T11:06:40.123Z"
    assert pr.Post.from_proto(PUBLISHED)["published_at"] == "2026-11-18T11:06:40.123Z"
    assert pr.Post.from_proto(POST)["published_at"] is None


def test_create_media_ticket_tells_how_to_upload(contract: Contract) -> None:
    request = PresignRequest(filename="a.png", mime_type="image/png", size_bytes=10)
    ticket = mr.PresignTicket.from_upload(
        media_pb2.Upload(media_id="med_1", upload_url="http://s/u", expires_in=3600), request
    )
    assert ticket["upload"] == {"method": "PUT", "url": "http://s/u", "headers": {"Content-Type": "image/png"}}
    duplicate = mr.PresignTicket.from_upload(media_pb2.Upload(media_id="med_1", duplicate=True), request)
    for rendered in (ticket, duplicate):
        contract.model(mr.PresignTicket).model_validate(rendered, strict=True)
    assert duplicate["upload"] is None and duplicate["duplicate"] is True
