"""The schema: typed SQLAlchemy 2 models, one module per domain. Hot paths use their Table objects
with Core statements; this package exports both."""

from __future__ import annotations

from core.db.models.accounts import (
    ApiKey,
    CreditLedgerEntry,
    EmailVerification,
    Invitation,
    Membership,
    Organization,
    Session,
    SignInThrottle,
    User,
)
from core.db.models.analytics import PostMetricSeries, PostMetricSnapshot
from core.db.models.audience import AccountMetricSeries, AccountMetricSnapshot
from core.db.models.audit import AuditEvent
from core.db.models.base import ID, NAMING, Base
from core.db.models.mail import OutgoingMail
from core.db.models.notes import Notification, NotificationSetting, PostComment
from core.db.models.oauth import OAuthClient, OAuthCode, OAuthGrant, OAuthSigningKey, OAuthToken
from core.db.models.posts import IdempotencyKey, Media, OutboxEntry, Post, PostEvent, PostMedia, PostPart
from core.db.models.profiles import ConnectAttempt, PlatformApp, Profile, ProfileTag, SlotHold
from core.db.models.webhooks import Webhook, WebhookAttempt, WebhookEvent, WebhookMessage
from core.db.models.writing import BrandVoice, GenerateRun, Job, SourcingRun

users = User.__table__
sign_in_throttles = SignInThrottle.__table__
organizations = Organization.__table__
memberships = Membership.__table__
invitations = Invitation.__table__
email_verifications = EmailVerification.__table__
api_keys = ApiKey.__table__
credit_ledger = CreditLedgerEntry.__table__
profiles = Profile.__table__
profile_tags = ProfileTag.__table__
slot_holds = SlotHold.__table__
connect_attempts = ConnectAttempt.__table__
platform_apps = PlatformApp.__table__
media = Media.__table__
posts = Post.__table__
post_media = PostMedia.__table__
post_parts = PostPart.__table__
post_events = PostEvent.__table__
outbox = OutboxEntry.__table__
idempotency_keys = IdempotencyKey.__table__
sessions = Session.__table__
oauth_clients = OAuthClient.__table__
oauth_codes = OAuthCode.__table__
oauth_grants = OAuthGrant.__table__
oauth_tokens = OAuthToken.__table__
oauth_signing_keys = OAuthSigningKey.__table__
brand_voices = BrandVoice.__table__
jobs = Job.__table__
generate_runs = GenerateRun.__table__
sourcing_runs = SourcingRun.__table__
webhooks = Webhook.__table__
webhook_events = WebhookEvent.__table__
webhook_messages = WebhookMessage.__table__
webhook_attempts = WebhookAttempt.__table__
outgoing_mail = OutgoingMail.__table__
audit_events = AuditEvent.__table__
post_metric_series = PostMetricSeries.__table__
post_metric_snapshots = PostMetricSnapshot.__table__
account_metric_series = AccountMetricSeries.__table__
account_metric_snapshots = AccountMetricSnapshot.__table__
post_comments = PostComment.__table__
notifications = Notification.__table__
notification_settings = NotificationSetting.__table__

__all__ = [
    "ID",
    "NAMING",
    "Base",
    "User",
    "SignInThrottle",
    "Organization",
    "Membership",
    "ApiKey",
    "CreditLedgerEntry",
    "Session",
    "Profile",
    "ProfileTag",
    "SlotHold",
    "ConnectAttempt",
    "PlatformApp",
    "Media",
    "Post",
    "PostMedia",
    "PostPart",
    "PostEvent",
    "OutboxEntry",
    "IdempotencyKey",
    "OAuthClient",
    "OAuthCode",
    "OAuthGrant",
    "OAuthToken",
    "OAuthSigningKey",
    "BrandVoice",
    "Job",
    "GenerateRun",
    "SourcingRun",
    "OutgoingMail",
    "AuditEvent",
    "PostMetricSeries",
    "PostMetricSnapshot",
    "AccountMetricSeries",
    "AccountMetricSnapshot",
    "PostComment",
    "Notification",
    "NotificationSetting",
    "users",
    "sign_in_throttles",
    "organizations",
    "memberships",
    "invitations",
    "email_verifications",
    "api_keys",
    "credit_ledger",
    "profiles",
    "profile_tags",
    "slot_holds",
    "connect_attempts",
    "platform_apps",
    "media",
    "posts",
    "post_media",
    "post_parts",
    "post_events",
    "outbox",
    "idempotency_keys",
    "sessions",
    "oauth_clients",
    "oauth_codes",
    "oauth_grants",
    "oauth_tokens",
    "oauth_signing_keys",
    "brand_voices",
    "jobs",
    "generate_runs",
    "sourcing_runs",
    "webhooks",
    "webhook_events",
    "webhook_messages",
    "webhook_attempts",
    "outgoing_mail",
    "audit_events",
    "post_metric_series",
    "post_metric_snapshots",
    "account_metric_series",
    "account_metric_snapshots",
    "post_comments",
    "notifications",
    "notification_settings",
]
