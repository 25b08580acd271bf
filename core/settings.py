"""Core settings: read once from HERALD_* environment variables into one typed object."""

from __future__ import annotations

import ipaddress
import os
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from core.mail.config import SmtpServer

PlanName = Literal["active", "trialing", "none"]


class CoreSettings(BaseSettings):
    """Everything the core processes (core, worker, storage, admin) are configured by.

    Only process entry points construct it; everything else receives it.
    """

    model_config = SettingsConfigDict(env_prefix="HERALD_", extra="ignore", frozen=True)

    data_dir: Path = Path("var")
    # Empty means the embedded default: a SQLite file under data_dir.
    database_url: str = ""
    database_pool_size: int = Field(default=20, ge=1, le=200)
    core_listen: str = "127.0.0.1:50051"
    # How many core processes `herald serve` starts; 0 means one per CPU.
    core_processes: int = Field(default=0, ge=0, le=64)
    base_url: str = "http://127.0.0.1:8080"
    storage_listen: str = "127.0.0.1:8081"
    # The facade's own setting (facades/settings.py), read here too: `herald serve` checks the
    # address is free before it starts anything.
    facade_listen: str = "127.0.0.1:8080"
    publish_mode: Literal["sandbox", "live"] = "sandbox"
    # Successful responses carry a low_credits warning while the balance is below this.
    low_credit_threshold: int = Field(default=50, ge=0)
    log_level: str = "INFO"
    # One JSON object per line (contract/logs.py), or `text` for a terminal.
    log_format: Literal["json", "text"] = "json"

    # Publishing (core/publisher). Credits one delivery costs.
    post_cost: int = Field(default=1, ge=1)
    # How long a worker holds a claimed post before another may take it over.
    publish_lease_seconds: float = Field(default=60.0, gt=0)
    # How many due posts one worker claims per transaction, and delivers concurrently.
    publish_batch_size: int = Field(default=20, ge=1, le=500)
    # How often an idle worker looks for due posts.
    publish_poll_seconds: float = Field(default=1.0, gt=0)
    # Transient failures: at most this many attempts, waiting base * 2^(n-1) (capped) between.
    publish_max_attempts: int = Field(default=5, ge=1, le=50)
    publish_backoff_seconds: float = Field(default=30.0, ge=0)
    publish_backoff_cap_seconds: float = Field(default=3600.0, ge=0)
    # How often a worker removes expired unconfirmed uploads and idempotency keys.
    housekeeping_seconds: float = Field(default=300.0, gt=0)
    # History kept (core/worker/retention.py): webhook events with their deliveries, finished jobs.
    webhook_retention_days: float = Field(default=30.0, gt=0)
    jobs_retention_days: float = Field(default=7.0, gt=0)
    # Sandbox only: simulated platform latency per delivery, in milliseconds.
    sandbox_latency_ms: int = Field(default=0, ge=0, le=60_000)

    # Analytics (core/analytics; docs/analytics.md). When a published post's metrics are read,
    # counted from its publishing: durations with a unit (s, m, h or d), comma-separated, each
    # later than the one before; after the last, only a refresh reads them again.
    metrics_schedule: str = "1h,6h,24h,3d,7d,30d"
    # Reads one worker claims per transaction, how long it holds them before another may take
    # them over, and how often an idle worker looks for due ones.
    metrics_read_batch_size: int = Field(default=500, ge=1, le=5000)
    metrics_read_lease_seconds: float = Field(default=120.0, gt=0)
    metrics_read_poll_seconds: float = Field(default=5.0, gt=0)
    # Sandbox only: simulated platform latency per metrics call (one batch), in milliseconds.
    metrics_sandbox_latency_ms: int = Field(default=0, ge=0, le=60_000)
    # Account metrics (docs/analytics.md, "Account metrics"): each profile's followers are read
    # this often (a day), in claims of this many; an idle worker looks for due ones this often
    # (their lease is HERALD_METRICS_READ_LEASE_SECONDS').
    account_metrics_interval_seconds: float = Field(default=86400.0, gt=0)
    account_metrics_batch_size: int = Field(default=500, ge=1, le=5000)
    account_metrics_poll_seconds: float = Field(default=60.0, gt=0)
    # Analytics history (docs/analytics.md, "Retention"): posts' raw snapshots are kept this many
    # days, then one a day (the last of each UTC day per item).
    metrics_retention_days: float = Field(default=90.0, gt=0)
    # Best times (docs/analytics.md, "Best times") trust a profile's history from this many posts read.
    best_times_min_posts: int = Field(default=20, ge=1, le=5000)

    # The lease job queue the workers share (core/jobs): how often an idle worker looks for due
    # jobs, how long it holds one, how many it runs at once, and the backoff between attempts.
    # Webhooks (docs/webhooks.md): seconds between a failed delivery attempt and the next, one
    # entry per retry (Standard Webhooks / Svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h);
    # HERALD_WEBHOOK_RETRY_SCHEDULE as a JSON list. Each attempt's deadline.
    webhook_retry_schedule: list[float] = Field(default=[5, 300, 1800, 7200, 18000, 36000, 36000], max_length=20)
    webhook_timeout_seconds: float = Field(default=10.0, gt=0, le=60)
    # Deliveries to one endpoint one worker has in flight at once.
    webhook_endpoint_concurrency: int = Field(default=8, ge=1, le=100)
    # An endpoint whose every attempt failed for this long is disabled (Svix: 5 days).
    webhook_disable_after_seconds: float = Field(default=5 * 24 * 3600, gt=0)
    # Whether every outbound request to a host a user named (webhook receivers, Mastodon instances,
    # Bluesky PDSes, link cards, OAuth client metadata documents) may reach loopback, private,
    # link-local or metadata addresses. Unset: only while Herald itself is reachable on loopback
    # alone (its base URL's host is a loopback address, as on `make run`); see
    # `allows_private_targets` and docs/operations.md, "Outbound requests". The old name
    # HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES is read too.
    allow_private_targets: bool | None = Field(
        default=None,
        validation_alias=AliasChoices("HERALD_ALLOW_PRIVATE_TARGETS", "HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES"),
    )
    jobs_poll_seconds: float = Field(default=0.2, gt=0)
    # The gRPC health service follows the database (core/health.py): pinged this often, and
    # NOT_SERVING when it does not answer within the timeout.
    health_interval_seconds: float = Field(default=2.0, gt=0)
    health_timeout_seconds: float = Field(default=2.0, gt=0)
    # Rate limits (core/ratelimit.py): "<requests>/<seconds>" (or "off") per API key and per OAuth client
    # for one user in one organization, counted in Redis when HERALD_REDIS_URL is set (shared by every
    # core), else in memory.
    rate_limit_api_key: str = "3000/60"
    rate_limit_oauth_client: str = "1200/60"
    # Anonymous work per client address (contract/caller.py; docs/operations.md, "Rate limits"),
    # sized for one office behind one address: sign-in attempts per address and per account,
    # sign-ups and client registrations per address, and client metadata documents fetched for
    # unauthenticated authorization requests per address.
    rate_limit_sign_in_address: str = "100/600"
    rate_limit_sign_in_account: str = "20/600"
    rate_limit_sign_up_address: str = "20/3600"
    rate_limit_register_address: str = "100/3600"
    rate_limit_client_metadata_address: str = "60/600"
    # Refreshes of posts' metrics per organization (POST /v1/posts/{post_id}/metrics/refresh).
    rate_limit_metrics_refresh: str = "60/3600"
    redis_url: str = ""
    # `herald metrics` (the machine's exporter) listens here; workers sample the queues for
    # Prometheus this often when metrics are exported (PROMETHEUS_MULTIPROC_DIR).
    # prometheus-client's multiprocess directory (its own variable, read by the library at
    # import too): where every process writes its samples; empty: each keeps its own.
    metrics_dir: str = Field(default="", validation_alias="PROMETHEUS_MULTIPROC_DIR")
    metrics_listen: str = "127.0.0.1:9464"
    metrics_sample_seconds: float = Field(default=15.0, gt=0)
    jobs_lease_seconds: float = Field(default=120.0, gt=0)
    jobs_batch_size: int = Field(default=8, ge=1, le=100)
    # Jobs one worker runs at once (each slow one holds one slot).
    jobs_concurrency: int = Field(default=32, ge=1, le=1000)
    jobs_backoff_seconds: float = Field(default=2.0, ge=0)
    jobs_backoff_cap_seconds: float = Field(default=60.0, ge=0)

    # Writing tools (core/generate, docs/writing-tools.md). `builtin`: the deterministic, model-free
    # engine (the embedded default); `openai`: any OpenAI-compatible chat-completions server.
    generation_backend: Literal["builtin", "openai"] = "builtin"
    generation_openai_base_url: str = ""
    generation_openai_api_key: SecretStr = SecretStr("")
    generation_openai_model: str = ""
    # One backend request's deadline, and the attempts a run gets before it fails.
    generation_timeout_seconds: float = Field(default=60.0, gt=0)
    generation_max_attempts: int = Field(default=3, ge=1, le=20)
    # How long a generate_* call waits for its run before answering with the run's id instead.
    generation_wait_seconds: float = Field(default=3.0, ge=0, le=60)
    # Credits one run costs, per backend (a failed run is refunded).
    generation_builtin_cost: int = Field(default=0, ge=0)
    generation_openai_cost: int = Field(default=1, ge=0)

    # Accounts and OAuth (core/identity, core/oauth; docs/oauth.md; lifetimes: docs/api.md, "Limits").
    # The plan an organization created at sign-up starts on (billing is outside Herald).
    signup_plan: PlanName = "trialing"
    # Credits an organization created by sign-up starts with (its first posts can go out).
    signup_credits: int = Field(default=100, ge=0)
    # `open`: anyone may sign up (an organization of their own); `closed`: only operators create
    # accounts (`herald admin bootstrap`), and later people invited by a member.
    signup: Literal["open", "closed"] = "open"
    session_lifetime_seconds: int = Field(default=7 * 86400, ge=60)
    # Password hashes (argon2id, 64 MiB each) one core process computes at once; others wait.
    password_hash_concurrency: int = Field(default=2, ge=1, le=32)
    oauth_code_lifetime_seconds: int = Field(default=60, ge=1, le=600)
    oauth_access_token_lifetime_seconds: int = Field(default=604800, ge=60)
    oauth_refresh_token_lifetime_seconds: int = Field(default=2592000, ge=60)

    # Object storage (core/storage; docs/decisions.md, "Upload URLs point at object storage"):
    # `local` is the embedded `herald storage` server.
    storage_backend: Literal["local", "gcs"] = "local"
    # Base of the upload URLs the local backend issues; empty means http://{storage_listen}.
    storage_public_url: str = Field(default="", validate_default=True)
    # HMAC key of local upload URLs; empty means a random key kept in {data_dir}/storage-signing.key.
    storage_signing_key: SecretStr = SecretStr("")
    # Google Cloud Storage: bucket, service-account JSON for V4 signing, emulator URL (empty = Google).
    gcs_bucket: str = ""
    gcs_credentials_file: str = ""
    gcs_endpoint: str = ""

    # Live publishing (core/platform_accounts, core/connectors; docs/live-publishing.md).
    # Keys sealing platform tokens at rest: `<id>:<base64url 32 bytes>`, comma-separated, the first
    # seals, all open; empty means a key generated into {data_dir}/platform-token.key.
    platform_token_keys: SecretStr = SecretStr("")
    # Where the generated key file lives when HERALD_PLATFORM_TOKEN_KEYS is empty; empty means
    # {data_dir}/platform-token.key. Keep it off the data directory's backups (docs/operations.md).
    platform_token_keys_file: str = ""
    # The operator's app on each platform (docs/live-publishing.md says how to register each).
    # Mastodon needs none (Herald registers itself on each instance), Bluesky neither (app passwords).
    x_client_id: str = ""
    x_client_secret: SecretStr = SecretStr("")
    threads_client_id: str = ""
    threads_client_secret: SecretStr = SecretStr("")
    instagram_client_id: str = ""
    instagram_client_secret: SecretStr = SecretStr("")
    tiktok_client_id: str = ""  # TikTok calls it the client key
    tiktok_client_secret: SecretStr = SecretStr("")
    youtube_client_id: str = ""
    youtube_client_secret: SecretStr = SecretStr("")
    linkedin_client_id: str = ""
    linkedin_client_secret: SecretStr = SecretStr("")
    # The app name Herald registers on Mastodon instances (shown to users on their instance).
    mastodon_app_name: str = "Herald"
    # Platform hosts rewritten to other base URLs, as a JSON object ({"api.x.com":
    # "http://127.0.0.1:9001"}): a platform's own sandbox, an egress proxy, or the test fakes.
    platform_host_overrides: dict[str, str] = Field(default_factory=dict)
    # One platform request's deadline (a media upload's chunk, a post); keep it well under the
    # publish lease so a slow request is over before another worker may take the post over.
    platform_timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    # Tokens expiring within this window are refreshed ahead by the workers.
    platform_refresh_ahead_seconds: int = Field(default=900, ge=0)
    # How long a started connection (the platform's sign-in page) may take to come back.
    connect_attempt_lifetime_seconds: int = Field(default=900, ge=60, le=3600)
    # Origins (`https://app.example`, comma-separated) whose pages a REST caller may name as a
    # connection's return_to; empty: only paths of this site (anyone can sign up and start a
    # connection, so an open list would make Herald's callback an open redirect).
    connect_return_origins: str = ""

    # Outgoing mail (core/mail; docs/mail.md): the SMTP server the workers submit mail to, as
    # smtp://user:password@host:port (smtp+starttls:// to upgrade with STARTTLS, smtps:// for TLS
    # from the start); a secret, for its password. Empty: mail is off, and what would be mailed
    # (an invitation's link) is shown to copy instead.
    smtp_url: SecretStr = SecretStr("")
    # The sender of every message (`Herald <herald@example.com>`); empty means Herald at the base
    # URL's host.
    mail_from: str = ""

    # Licensed stock photos (docs/stock.md). stock_a speaks Pexels' API, stock_b Unsplash's. A
    # provider without a key is served by the local demo provider (`herald stock-demo`, started by
    # `herald serve`) while stock_demo is on, and answers STOCK_NOT_CONFIGURED otherwise.
    stock_a_api_key: SecretStr = SecretStr("")
    stock_a_base_url: str = "https://api.pexels.com"
    stock_b_access_key: SecretStr = SecretStr("")
    stock_b_base_url: str = "https://api.unsplash.com"
    stock_b_app_name: str = "herald"  # Unsplash's utm_source in attribution links
    stock_demo: bool = True
    stock_demo_listen: str = "127.0.0.1:8082"
    stock_image_cost: int = Field(default=1, ge=1)  # credits per image delivered
    stock_search_cache_seconds: int = Field(default=600, ge=0)
    stock_timeout_seconds: float = Field(default=15.0, gt=0, le=120)
    stock_fetch_max_bytes: int = Field(default=25 * 1024 * 1024, ge=1024)
    # How long a sourcing call waits for its photos before answering `kind: run` (the core that
    # started it finishes it; docs/stock.md "Runs").
    stock_source_wait_seconds: float = Field(default=30.0, gt=0, le=300)
    # When a worker takes over a sourcing run whose core has not finished it (the core stopped):
    # the run's job is due this long after the run started (core/stock/runs.py).
    stock_source_recover_seconds: float = Field(default=120.0, gt=0, le=600)

    @field_validator(
        "rate_limit_api_key",
        "rate_limit_oauth_client",
        "rate_limit_sign_in_address",
        "rate_limit_sign_in_account",
        "rate_limit_sign_up_address",
        "rate_limit_register_address",
        "rate_limit_client_metadata_address",
        "rate_limit_metrics_refresh",
    )
    @classmethod
    def _budget(cls, value: str) -> str:
        from core.ratelimit import Budget

        Budget.parse(value)
        return value

    @field_validator("metrics_schedule")
    @classmethod
    def _metrics_schedule(cls, value: str) -> str:
        from core.analytics.schedule import parse_schedule

        parse_schedule(value)
        return value

    @field_validator("allow_private_targets", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("smtp_url")
    @classmethod
    def _smtp_url(cls, value: SecretStr) -> SecretStr:
        from core.mail.config import parse_smtp_url

        if value.get_secret_value().strip():
            parse_smtp_url(value.get_secret_value())  # an SmtpUrlError, never pydantic's error quoting the URL
        return value

    @field_validator("mail_from")
    @classmethod
    def _mail_from(cls, value: str) -> str:
        from core.mail.config import one_address

        if value.strip() and one_address(value.strip()) is None:
            raise ValueError("HERALD_MAIL_FROM must be one address, as `Herald <herald@example.com>`")
        return value.strip()

    @field_validator("storage_public_url")
    @classmethod
    def _storage_url(cls, value: str, info: ValidationInfo) -> str:
        return (value or f"http://{info.data.get('storage_listen', '127.0.0.1:8081')}").rstrip("/")

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def allows_private_targets(self) -> bool:
        """HERALD_ALLOW_PRIVATE_TARGETS when set; else whether Herald is reachable on loopback
        only (its base URL names a loopback host), where a user who can reach it is on this
        machine already and may try a local webhook receiver or a local agent."""
        if self.allow_private_targets is not None:
            return self.allow_private_targets
        host = (urlsplit(self.base_url).hostname or "").lower()
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    @property
    def metrics_read_offsets(self) -> tuple[timedelta, ...]:
        """HERALD_METRICS_SCHEDULE: when each read of a published post's metrics is due, after
        its publishing."""
        from core.analytics.schedule import parse_schedule

        return parse_schedule(self.metrics_schedule)

    @property
    def smtp_server(self) -> SmtpServer | None:
        """Where the workers send mail; None when mail is off (HERALD_SMTP_URL empty)."""
        from core.mail.config import parse_smtp_url

        url = self.smtp_url.get_secret_value()
        return parse_smtp_url(url) if url.strip() else None

    @property
    def mail_sender(self) -> str:
        """HERALD_MAIL_FROM, or Herald at the base URL's host."""
        from core.mail.config import default_sender

        return self.mail_from or default_sender(urlsplit(self.base_url).hostname or "")

    @property
    def mcp_resource(self) -> str:
        """The audience of every access token this authorization server issues (docs/oauth.md, the
        audience rule)."""
        return f"{self.base_url}/mcp"

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'herald.db').resolve()}"

    @property
    def is_sqlite(self) -> bool:
        return self.effective_database_url.startswith("sqlite")

    @property
    def core_process_count(self) -> int:
        return self.core_processes or (os.cpu_count() or 1)
