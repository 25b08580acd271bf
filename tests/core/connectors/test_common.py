"""What every connector keeps: one per platform key, no credential in any recorded request,
sandbox answers deterministic per delivery, each documented platform error classified
(DESIGN 9). Each platform's own protocol is tested in its own module here."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.connectors.base import ErrorClass, OutgoingPost
from tests.core.connectors.factories import ACCOUNTS, HERALD, connector_for, image, post, sandboxed, video

RETRYABLE, REAUTH, PERMANENT = ErrorClass.RETRYABLE, ErrorClass.NEEDS_REAUTH, ErrorClass.PERMANENT


def test_registry_has_one_connector_per_platform_key() -> None:
    from core.connectors.registry import CONNECTORS
    from core.connectors.registry import connector_for as registered
    from core.posts.rules import PLATFORM_LIMITS

    assert list(CONNECTORS) == list(PLATFORM_LIMITS)  # one list of platform keys: the rules table's
    assert sorted(CONNECTORS) == sorted(ACCOUNTS)
    assert all(connector.key == key for key, connector in CONNECTORS.items())
    assert all(type(registered(key)) is type(connector_for(key)) for key in CONNECTORS)
    with pytest.raises(KeyError):
        registered("myspace")


SAMPLES = [
    post("x"),
    post("x", media=(image(1, alt_text="a cat"), image(2))),
    post("x", media=(video(size_bytes=12 * 1024 * 1024),)),
    post("bluesky"),
    post("bluesky", media=(image(),)),
    post("bluesky", media=(video(),)),
    post("mastodon"),
    post("mastodon", media=(video(),)),
    post("threads"),
    post("threads", media=(image(1), video(2))),
    post("instagram", media=(image(),)),
    post("instagram", media=(image(1), image(2))),
    post("tiktok", media=(video(),)),
    post("tiktok", media=(image(1), image(2))),
    post("youtube", media=(video(),), title="Launch"),
    post("linkedin"),
    post("linkedin", media=(image(1), image(2))),
    post("linkedin", media=(video(),)),
]
_TOKENISH = re.compile(r"authorization|token|secret|bearer|api[-_]?key|cookie|oauth", re.IGNORECASE)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.connector}-{len(p.media)}")
async def test_no_recorded_request_carries_a_credential(sample: OutgoingPost) -> None:
    api = await sandboxed(sample)
    assert api.requests
    for request in api.requests:
        headers = request["headers"]
        assert not any(_TOKENISH.search(name) for name in headers), headers
        assert not any(_TOKENISH.search(value) for value in headers.values()), headers
        assert "access_token=" not in request["url"]
        assert request["url"].startswith("https://")
        assert request["method"] in ("GET", "POST", "PUT")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.connector}-{len(p.media)}")
async def test_exactly_one_request_creates_the_post(sample: OutgoingPost) -> None:
    from tests.core.connectors.factories import scripted

    api = scripted(sample)
    delivery = await connector_for(sample.connector).deliver(sample, api)
    assert [r.creates_post for r in api.requests].count(True) == 1
    assert delivery.platform_post_id and delivery.url.startswith("https://")
    assert "create_sent_at" in api.state


@pytest.mark.parametrize("key", sorted(ACCOUNTS))
def test_sandbox_post_id_is_deterministic_per_delivery_key(key: str) -> None:
    connector = connector_for(key)
    first = connector.sandbox_post_id(post(key))
    assert first == connector.sandbox_post_id(post(key, content="other text"))
    assert connector.sandbox_post_id(post(key, delivery_key="dk_2")) != first


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.connector}-{len(p.media)}")
async def test_a_sandbox_delivery_links_to_herald_s_page_of_the_post(sample: OutgoingPost) -> None:
    # Nothing is on the platform: the URL is the post's page on Herald, at its outbox entry.
    api = await sandboxed(sample)
    assert api.delivery.url == f"{HERALD}/dashboard/posts/{sample.post_id}#outbox-post"


# Bluesky's record carries the time it is sent (createdAt, and the record key made from it).
@pytest.mark.parametrize(
    "sample", [s for s in SAMPLES if s.connector != "bluesky"], ids=lambda p: f"{p.connector}-{len(p.media)}"
)
async def test_a_sandbox_run_records_the_same_requests_every_time(sample: OutgoingPost) -> None:
    first, second = await sandboxed(sample), await sandboxed(sample)
    assert first.requests == second.requests
    assert first.delivery == second.delivery
    assert first.delivery.platform_post_id == connector_for(sample.connector).sandbox_post_id(sample)


# --- classify ---------------------------------------------------------------------------------

X_DUPLICATE = {
    "detail": "You are not allowed to create a Tweet with duplicate content.",
    "title": "Forbidden",
    "status": 403,
}
GRAPH_TOKEN = {"error": {"message": "Error validating access token", "type": "OAuthException", "code": 190}}


def graph(code: int, subcode: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": "m", "type": "OAuthException", "code": code, "fbtrace_id": "A"}
    if subcode is not None:
        error["error_subcode"] = subcode
    return {"error": error}


def tiktok(code: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": "m", "log_id": "L"}}


def google(reason: str) -> dict[str, Any]:
    return {"error": {"code": 403, "message": "m", "errors": [{"domain": "youtube.quota", "reason": reason}]}}


CASES = [
    ("x", 401, {"title": "Unauthorized"}, REAUTH),
    ("x", 403, X_DUPLICATE, PERMANENT),
    ("x", 400, {"detail": "Your media IDs are invalid."}, PERMANENT),
    ("x", 429, None, RETRYABLE),
    ("x", 503, "Service Unavailable", RETRYABLE),
    ("bluesky", 400, {"error": "ExpiredToken", "message": "Token has expired"}, REAUTH),
    (
        "bluesky",
        400,
        {"error": "InvalidRequest", "message": "Record/text must not be longer than 300 graphemes"},
        PERMANENT,
    ),
    ("bluesky", 413, {"error": "PayloadTooLarge"}, PERMANENT),
    ("bluesky", 429, {"error": "RateLimitExceeded"}, RETRYABLE),
    ("mastodon", 401, {"error": "The access token is invalid"}, REAUTH),
    ("mastodon", 422, {"error": "Validation failed: Text character limit of 500 exceeded"}, PERMANENT),
    ("mastodon", 429, {"error": "Too many requests"}, RETRYABLE),
    ("mastodon", 500, None, RETRYABLE),
    ("threads", 400, GRAPH_TOKEN, REAUTH),
    ("threads", 400, graph(4), RETRYABLE),
    ("threads", 400, graph(17), RETRYABLE),
    ("threads", 400, graph(32), RETRYABLE),
    ("threads", 400, graph(613), RETRYABLE),
    ("threads", 400, graph(100), PERMANENT),
    ("instagram", 400, GRAPH_TOKEN, REAUTH),
    ("instagram", 400, graph(9, 2207042), RETRYABLE),
    ("instagram", 400, graph(9007, 2207027), RETRYABLE),
    ("instagram", 400, graph(36004, 2207010), PERMANENT),
    ("instagram", 400, graph(9004, 2207052), PERMANENT),
    ("instagram", 403, graph(4), RETRYABLE),
    ("tiktok", 401, tiktok("access_token_invalid"), REAUTH),
    ("tiktok", 429, tiktok("rate_limit_exceeded"), RETRYABLE),
    ("tiktok", 403, tiktok("spam_risk_too_many_posts"), RETRYABLE),
    ("tiktok", 400, tiktok("invalid_params"), PERMANENT),
    ("tiktok", 400, tiktok("privacy_level_option_mismatch"), PERMANENT),
    ("youtube", 403, google("quotaExceeded"), RETRYABLE),
    ("youtube", 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}, REAUTH),
    ("youtube", 400, google("uploadLimitExceeded"), RETRYABLE),
    ("youtube", 400, google("invalidTitle"), PERMANENT),
    (
        "linkedin",
        401,
        {"status": 401, "serviceErrorCode": 65601, "message": "The token used in the request has expired"},
        REAUTH,
    ),
    (
        "linkedin",
        422,
        {"status": 422, "message": "ERROR :: /commentary :: DUPLICATE_POST Content is a duplicate of urn:li:share:1"},
        PERMANENT,
    ),
    ("linkedin", 426, {"status": 426, "message": "Requested version 20220101 is not active"}, PERMANENT),
    ("linkedin", 429, None, RETRYABLE),
]


@pytest.mark.parametrize(("key", "status", "body", "expected"), CASES, ids=lambda v: str(v)[:24])
def test_classify_documented_errors(key: str, status: int, body: Any, expected: ErrorClass) -> None:
    assert connector_for(key).classify(status, body) is expected


ODD_BODIES = [
    None,
    "",
    "Rate Limit Exceeded",
    b"\xff\xfe",
    [],
    [1, "x"],
    {"error": None},
    {"error": "x"},
    {"error": [1]},
    42,
    object(),
]


@pytest.mark.parametrize("key", sorted(ACCOUNTS))
@pytest.mark.parametrize("status", [400, 401, 403, 404, 429, 500, 502])
def test_classify_never_raises_on_odd_bodies(key: str, status: int) -> None:
    for body in ODD_BODIES:
        result = connector_for(key).classify(status, body)
        assert isinstance(result, ErrorClass)
        if status in (429, 500, 502):
            assert result is RETRYABLE
