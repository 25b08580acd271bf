"""{base_url}/openapi.json (SPEC 4, 9.4): the OpenAPI 3.1 description of every /v1 route.

Built on every request from the same modules the routes use where they hold the facts (error
codes and their statuses, post statuses, plan names), so it stays current with the endpoints;
tests/facades/test_openapi.py checks it against the app's routes, the fields each route accepts
and the live responses. Facts that only the core holds are written here with the doc naming them.

Response objects are closed (`unevaluatedProperties: false`): the facade's JSON shapes
(facades/rest/render.py) are exact, and any success body may also carry `warning` (SPEC 6.3).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from facades.errors import HTTP_STATUS
from facades.rest.render import PLAN_NAMES, POST_STATUS_NAMES
from facades.settings import FacadeSettings

OPENAPI_VERSION = "3.1.0"

# docs/api.md (GET /v1/profiles): the platform keys a profile's `connector` takes.
CONNECTORS = ["x", "bluesky", "mastodon", "threads", "instagram", "tiktok", "youtube", "linkedin"]
# docs/posts.md "Post types" (the first is each platform's default).
POST_TYPES = {
    "x": ["post"],
    "bluesky": ["post"],
    "mastodon": ["post"],
    "threads": ["post"],
    "linkedin": ["post"],
    "instagram": ["feed", "reel", "story"],
    "tiktok": ["video", "photo"],
    "youtube": ["video", "short"],
}
# docs/media.md "Allowed types and limits".
MIME_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif", "video/mp4", "video/quicktime", "video/webm"]
MEDIA_TYPES = ["image", "gif", "video"]
MEDIA_STATUSES = ["pending", "confirmed"]
# docs/posts.md "Lifecycle": why a post failed.
FAILURE_REASONS = [
    "insufficient_credits",
    "platform_rejected",
    "needs_reauth",
    "retries_exhausted",
    "delivery_uncertain",
]
# docs/posts.md "Creating posts" and SPEC 8.
MAX_CONTENT = 25_000
MAX_PROFILES = 50
MAX_MEDIA_IDS = 35
MAX_TITLE = 100
# docs/media.md: filenames and descriptions (the core's validate_upload and PATCH checks).
MAX_FILENAME = 255
MAX_DESCRIPTION = 5000
# SPEC 4 / docs/media.md: upload URLs live one hour.
UPLOAD_URL_LIFETIME = 3600

TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_:-]{0,63}$"

_SCHEMA = "#/components/schemas/"
_RESPONSE = "#/components/responses/"
_PARAMETER = "#/components/parameters/"
_HEADER = "#/components/headers/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _SCHEMA + name}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def _closed(name: str) -> dict[str, Any]:
    """One resource as an element of a list: exactly its fields."""
    return {"$ref": _SCHEMA + name, "unevaluatedProperties": False}


def _body(name: str) -> dict[str, Any]:
    """One resource as a whole response body: its fields, and `warning` once credits run low."""
    return {"$ref": _SCHEMA + name, "properties": {"warning": _ref("CreditWarning")}, "unevaluatedProperties": False}


def _envelope(key: str, item: str, *, paged: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {key: {"type": "array", "items": _closed(item)}, "warning": _ref("CreditWarning")}
    if paged:
        properties["next_page_token"] = {
            "type": "string",
            "minLength": 1,
            "description": "Present only when there is a next page; pass it back as `page_token`.",
        }
    return {"type": "object", "required": [key], "properties": properties, "additionalProperties": False}


def _schemas() -> dict[str, Any]:
    timestamp = {"type": "string", "format": "date-time", "pattern": TIMESTAMP_PATTERN}
    post_types = sorted({t for types in POST_TYPES.values() for t in types})
    return {
        "Error": {
            "type": "object",
            "description": "Every failure at /v1 (SPEC 7). `error` is for humans and may change; branch on `code`.",
            "required": ["error", "code"],
            "properties": {
                "error": {"type": "string"},
                "code": {"type": "string", "enum": list(HTTP_STATUS)},
                "valid_for": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Only with PRESET_DESTINATION: the destinations the preset reaches.",
                },
            },
            "additionalProperties": False,
        },
        "CreditWarning": {
            "type": "object",
            "description": "Added to a success body once the balance is below the low-credit threshold.",
            "required": ["code", "remaining"],
            "properties": {"code": {"const": "low_credits"}, "remaining": {"type": "integer"}},
            "additionalProperties": False,
        },
        "Timestamp": {**timestamp, "description": "ISO 8601, UTC, with milliseconds."},
        "Profile": {
            "type": "object",
            "required": ["id", "slug", "connector", "display_name", "tags", "created_at"],
            "properties": {
                "id": {"type": "string", "pattern": "^prf_"},
                "slug": {"type": "string"},
                "connector": {"type": "string", "enum": CONNECTORS},
                "display_name": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Lowercase."},
                "created_at": _ref("Timestamp"),
            },
        },
        "LedgerEntry": {
            "type": "object",
            "required": ["id", "delta", "balance_after", "reason", "reference", "created_at"],
            "properties": {
                "id": {"type": "string", "pattern": "^led_"},
                "delta": {"type": "integer", "description": "Credits added (positive) or spent (negative)."},
                "balance_after": {"type": "integer"},
                "reason": {"type": "string", "description": "e.g. `grant`, `post_delivery`, `refund`."},
                "reference": {"type": "string", "description": "What the entry is for, e.g. the post id."},
                "created_at": _ref("Timestamp"),
            },
        },
        "CreditAccount": {
            "type": "object",
            "required": ["organization", "balance", "plan", "low_credit_threshold", "ledger"],
            "properties": {
                "organization": {"type": "string", "description": "The organization's slug."},
                "balance": {"type": "integer"},
                "plan": {"type": "string", "enum": list(dict.fromkeys(PLAN_NAMES.values()))},
                "low_credit_threshold": {"type": "integer"},
                "ledger": {"type": "array", "items": _closed("LedgerEntry"), "description": "Newest first."},
            },
        },
        "Post": {
            "type": "object",
            "description": "SPEC 2's Post plus the lifecycle fields of docs/posts.md.",
            "required": [
                "id",
                "profile",
                "connector",
                "content",
                "status",
                "schedule_at",
                "created_at",
                "media_ids",
                "post_type",
                "title",
                "failure_reason",
                "platform_error",
                "platform_post_id",
                "url",
                "published_at",
                "attempts",
                "updated_at",
            ],
            "properties": {
                "id": {"type": "string", "pattern": "^pst_"},
                "profile": {"type": "string", "description": "Slug of the profile it was created for."},
                "connector": {"type": "string", "enum": CONNECTORS},
                "content": {"type": "string"},
                "status": {"type": "string", "enum": list(POST_STATUS_NAMES.values())},
                "schedule_at": _ref("Timestamp"),
                "created_at": _ref("Timestamp"),
                "media_ids": {"type": "array", "items": {"type": "string"}},
                "post_type": {"type": "string", "enum": post_types},
                "title": {"type": ["string", "null"], "maxLength": MAX_TITLE},
                "failure_reason": {"type": ["string", "null"], "enum": [*FAILURE_REASONS, None]},
                "platform_error": {"type": ["string", "null"], "description": "The platform's own message."},
                "platform_post_id": {"type": ["string", "null"]},
                "url": {"type": ["string", "null"], "description": "The published post's URL."},
                "published_at": {"oneOf": [_ref("Timestamp"), {"type": "null"}]},
                "attempts": {"type": "integer", "minimum": 0},
                "updated_at": _ref("Timestamp"),
            },
        },
        "OutboxEntry": {
            "type": "object",
            "required": ["id", "post_id", "connector", "mode", "requests", "platform_post_id", "url", "created_at"],
            "properties": {
                "id": {"type": "string", "pattern": "^obx_"},
                "post_id": {"type": "string"},
                "connector": {"type": "string", "enum": CONNECTORS},
                "mode": {"type": "string", "enum": ["sandbox", "live"]},
                "requests": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "The platform requests, in order (sandbox: recorded, not sent).",
                },
                "platform_post_id": {"type": "string"},
                "url": {"type": "string"},
                "created_at": _ref("Timestamp"),
            },
        },
        "Media": {
            "type": "object",
            "description": "SPEC 2's media record plus status, content_hash and image dimensions (docs/media.md).",
            "required": [
                "media_id",
                "type",
                "mime_type",
                "size_bytes",
                "name",
                "description",
                "tags",
                "created_at",
                "status",
                "content_hash",
                "width",
                "height",
            ],
            "properties": {
                "media_id": {"type": "string", "pattern": "^med_"},
                "type": {"type": "string", "enum": MEDIA_TYPES},
                "mime_type": {"type": "string", "enum": MIME_TYPES},
                "size_bytes": {"type": "integer", "minimum": 0},
                "name": {"type": "string", "description": "The original filename."},
                "description": {"type": "string", "description": "Empty string by default."},
                "tags": {"type": "string", "description": "Comma-separated, lowercased; empty string by default."},
                "created_at": _ref("Timestamp"),
                "status": {"type": "string", "enum": MEDIA_STATUSES},
                "content_hash": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
                "width": {"type": ["integer", "null"], "minimum": 1},
                "height": {"type": ["integer", "null"], "minimum": 1},
            },
        },
        "PresignResult": {
            "type": "object",
            "required": ["media_id", "upload_url", "expires_in"],
            "properties": {
                "media_id": {"type": "string", "pattern": "^med_"},
                "upload_url": {
                    "type": "string",
                    "format": "uri",
                    "description": "PUT the raw bytes here with `Content-Type` equal to the declared mime_type.",
                },
                "expires_in": {"type": "integer", "const": UPLOAD_URL_LIFETIME},
                "warning": _ref("CreditWarning"),
            },
            "additionalProperties": False,
        },
        "PresignDuplicate": {
            "type": "object",
            "description": "The library already holds these bytes (by content_hash): nothing was created.",
            "required": ["media_id", "duplicate"],
            "properties": {
                "media_id": {"type": "string", "pattern": "^med_"},
                "duplicate": {"const": True},
                "warning": _ref("CreditWarning"),
            },
            "additionalProperties": False,
        },
        "CreatePostsRequest": {
            "type": "object",
            "required": ["content", "profiles"],
            "examples": [{"content": "Launch day!", "profiles": ["acme-x"]}],
            "properties": {
                "content": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_CONTENT,
                    "pattern": r"\S",
                    "description": "Post body; never truncated: each destination's own limit is checked.",
                },
                "profiles": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": MAX_PROFILES,
                    "uniqueItems": True,
                    "description": "Profile slugs of this organization; one post is created per profile.",
                },
                "schedule_at": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "ISO 8601 with an offset; omitted: publish now. At most 60 s in the past, "
                    "at most 366 days ahead.",
                },
                "media_ids": {
                    "type": ["array", "null"],
                    "items": {"type": "string"},
                    "maxItems": MAX_MEDIA_IDS,
                    "uniqueItems": True,
                    "description": "Confirmed media of this organization's library.",
                },
                "post_types": {
                    "type": ["object", "null"],
                    "description": "Per-platform post type; platforms the request does not post to are ignored.",
                    "properties": {c: {"type": "string", "enum": t} for c, t in POST_TYPES.items()},
                    "additionalProperties": False,
                },
                "title": {
                    "type": ["string", "null"],
                    "maxLength": MAX_TITLE,
                    "description": "Title for the video platform.",
                },
            },
            "additionalProperties": False,
        },
        "UpdatePostRequest": {
            "type": "object",
            "description": "Only while the post is `scheduled` or `queued`; absent fields are kept.",
            "properties": {
                "content": {"type": "string", "minLength": 1, "maxLength": MAX_CONTENT, "pattern": r"\S"},
                "schedule_at": {"type": "string", "format": "date-time"},
                "media_ids": {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": MAX_MEDIA_IDS,
                    "uniqueItems": True,
                    "description": "Replaces the attachments (`[]` removes them all).",
                },
            },
            "additionalProperties": False,
        },
        "PresignRequest": {
            "type": "object",
            "required": ["filename", "mime_type", "size_bytes"],
            "examples": [{"filename": "launch.png", "mime_type": "image/png", "size_bytes": 48213}],
            "properties": {
                "filename": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_FILENAME,
                    "pattern": r"^[^/\x00-\x1f\x7f]*\S[^/\x00-\x1f\x7f]*$",
                    "description": "The original filename: printable, without '/'.",
                },
                "mime_type": {"type": "string", "enum": MIME_TYPES},
                "size_bytes": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1_000_000_000,
                    "description": "At most 50,000,000 for images and GIFs, 1,000,000,000 for video (FILE_TOO_LARGE).",
                },
                "content_hash": {
                    "type": ["string", "null"],
                    "pattern": "^[0-9a-f]{64}$",
                    "description": "SHA-256 of the bytes, 64 lowercase hex characters; enables dedupe.",
                },
            },
            "additionalProperties": False,
        },
        "UpdateMediaRequest": {
            "type": "object",
            "properties": {
                "description": {"type": "string", "maxLength": MAX_DESCRIPTION},
                "tags": {"type": "string", "description": "Comma-separated tags (each 1-64 of a-z 0-9 _ : -)."},
            },
            "additionalProperties": False,
        },
        "LegacyUpload": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {
                    "type": "string",
                    "format": "binary",
                    "contentMediaType": "application/octet-stream",
                    "description": "The file; its filename and Content-Type become the record's name and mime_type.",
                }
            },
        },
    }


def _error_responses() -> dict[str, Any]:
    """One response per error status, its `code` narrowed to the codes that status carries."""
    by_status: dict[int, list[str]] = defaultdict(list)
    for code, status in HTTP_STATUS.items():
        by_status[status].append(code)
    responses: dict[str, Any] = {}
    for status, codes in sorted(by_status.items()):
        response: dict[str, Any] = {
            "description": f"{status}: {', '.join(codes)}",
            "content": {
                "application/json": {
                    "schema": {
                        "$ref": _SCHEMA + "Error",
                        "properties": {"code": {"enum": codes}},
                        "unevaluatedProperties": False,
                    }
                }
            },
        }
        if status == 401:
            response["headers"] = {"WWW-Authenticate": {"$ref": _HEADER + "WWW-Authenticate"}}
        responses[f"Error{status}"] = response
    return responses


def _success(description: str, schema: dict[str, Any], links: dict[str, Any] | None = None) -> dict[str, Any]:
    response = {
        "description": description,
        "headers": {"X-Credits-Remaining": {"$ref": _HEADER + "X-Credits-Remaining"}},
        "content": {"application/json": {"schema": schema}},
    }
    if links:
        response["links"] = links
    return response


def _links(parameter: str, value: str, operation_ids: tuple[str, ...]) -> dict[str, Any]:
    """OpenAPI links: where the id a response returns is used next."""
    return {
        operation_id[0].upper() + operation_id[1:]: {"operationId": operation_id, "parameters": {parameter: value}}
        for operation_id in operation_ids
    }


def _operation(
    operation_id: str,
    summary: str,
    tag: str,
    success: dict[int, dict[str, Any]],
    errors: tuple[int, ...],
    *,
    parameters: list[dict[str, Any]] | None = None,
    body: dict[str, Any] | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """An operation; every one is also answered 401, 402 (credential, then plan) and 503."""
    responses: dict[str, Any] = {str(status): response for status, response in success.items()}
    for status in sorted({*errors, 401, 402, 503}):
        responses[str(status)] = {"$ref": f"{_RESPONSE}Error{status}"}
    operation: dict[str, Any] = {"operationId": operation_id, "summary": summary, "tags": [tag]}
    if description:
        operation["description"] = description
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = body
    operation["responses"] = responses
    return operation


def _json_body(schema_name: str, *, required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {"application/json": {"schema": _ref(schema_name)}}}


def _path_param(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description, "schema": {"type": "string"}}


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


def _page_size(maximum: int, default: int) -> dict[str, Any]:
    return _query(
        "page_size",
        {"type": "integer", "minimum": 0, "maximum": maximum, "default": default},
        f"Items per page, 1-{maximum}; 0 or absent: {default}.",
    )


def _paths() -> dict[str, Any]:
    page_token = {"$ref": _PARAMETER + "page_token"}
    post_id = _path_param("post_id", "The post's `id`.")
    media_id = _path_param("media_id", "The media record's `media_id`.")
    post_body = _success("The post.", _body("Post"))
    media_body = _success("The media record.", _body("Media"))
    return {
        "/v1/profiles": {
            "get": _operation(
                "listProfiles",
                "List the organization's connected profiles, in slug order",
                "profiles",
                {200: _success("A page of profiles.", _envelope("profiles", "Profile", paged=True))},
                (400,),
                parameters=[
                    _query(
                        "tag",
                        {"type": "string", "pattern": TAG_PATTERN},
                        "Only profiles with this tag (case-insensitive).",
                    ),
                    _page_size(500, 100),
                    page_token,
                ],
            )
        },
        "/v1/profiles/{slug}": {
            "get": _operation(
                "getProfile",
                "One profile",
                "profiles",
                {200: _success("The profile.", _body("Profile"))},
                (404,),
                parameters=[_path_param("slug", "The profile's slug.")],
            )
        },
        "/v1/credits": {
            "get": _operation(
                "getCredits",
                "The organization's credit balance, plan and most recent ledger entries",
                "credits",
                {200: _success("The credit account.", _body("CreditAccount"))},
                (400,),
                parameters=[
                    _query(
                        "ledger_limit",
                        {"type": "integer", "minimum": 0, "maximum": 100, "default": 20},
                        "How many recent ledger entries to include.",
                    )
                ],
            )
        },
        "/v1/credits/ledger": {
            "get": _operation(
                "listLedgerEntries",
                "The credit ledger, newest first",
                "credits",
                {200: _success("A page of ledger entries.", _envelope("entries", "LedgerEntry", paged=True))},
                (400,),
                parameters=[_page_size(100, 50), page_token],
            )
        },
        "/v1/posts": {
            "post": _operation(
                "createPosts",
                "Publish or schedule one post per named profile",
                "posts",
                {
                    201: _success(
                        "The created posts, one per profile.",
                        _envelope("posts", "Post", paged=False),
                        _links(
                            "post_id",
                            "$response.body#/posts/0/id",
                            ("getPost", "updatePost", "cancelPost", "retryPost", "listPostOutbox"),
                        ),
                    )
                },
                (400, 409, 413),
                parameters=[{"$ref": _PARAMETER + "Idempotency-Key"}],
                body=_json_body("CreatePostsRequest"),
                description="All or nothing: every check passes for every profile, or nothing is created. "
                "Errors: VALIDATION_ERROR, INVALID_MEDIA, INVALID_MEDIA_COMBINATION, IDEMPOTENCY_KEY_REUSED.",
            ),
            "get": _operation(
                "listPosts",
                "List posts, newest first",
                "posts",
                {200: _success("A page of posts.", _envelope("posts", "Post", paged=True))},
                (400,),
                parameters=[
                    _query("status", {"type": "string", "enum": list(POST_STATUS_NAMES.values())}, "Only this status."),
                    _query("profile", {"type": "string"}, "Only posts for this profile slug."),
                    _query("connector", {"type": "string", "enum": CONNECTORS}, "Only posts to this platform."),
                    _query(
                        "scheduled_after",
                        {"type": "string", "format": "date-time"},
                        "Only posts scheduled at or after this time (inclusive).",
                    ),
                    _query(
                        "scheduled_before",
                        {"type": "string", "format": "date-time"},
                        "Only posts scheduled before this time (exclusive).",
                    ),
                    _page_size(100, 50),
                    page_token,
                ],
            ),
        },
        "/v1/posts/{post_id}": {
            "get": _operation("getPost", "One post", "posts", {200: post_body}, (404,), parameters=[post_id]),
            "patch": _operation(
                "updatePost",
                "Edit a scheduled or queued post",
                "posts",
                {200: post_body},
                (400, 404, 409, 413),
                parameters=[post_id],
                body=_json_body("UpdatePostRequest"),
                description="Errors: VALIDATION_ERROR, INVALID_MEDIA, INVALID_MEDIA_COMBINATION, NOT_FOUND, "
                "INVALID_POST_STATE (not scheduled or queued).",
            ),
            "delete": _operation(
                "cancelPost",
                "Cancel a scheduled or queued post",
                "posts",
                {200: _success("The post, now `canceled`.", _body("Post"))},
                (404, 409),
                parameters=[post_id],
            ),
        },
        "/v1/posts/{post_id}/retry": {
            "post": _operation(
                "retryPost",
                "Re-queue a failed post",
                "posts",
                {200: _success("The post, now `queued`.", _body("Post"))},
                (404, 409),
                parameters=[post_id],
            )
        },
        "/v1/posts/{post_id}/outbox": {
            "get": _operation(
                "listPostOutbox",
                "What was delivered for a post (sandbox: the exact platform requests)",
                "posts",
                {200: _success("The post's deliveries.", _envelope("entries", "OutboxEntry", paged=False))},
                (404,),
                parameters=[post_id],
            )
        },
        "/v1/media/presign": {
            "post": _operation(
                "presignMedia",
                "Register an upload and get a short-lived upload URL",
                "media",
                {
                    201: _success(
                        "Upload registered: PUT the bytes to `upload_url`, then confirm.",
                        _ref("PresignResult"),
                        _links(
                            "media_id",
                            "$response.body#/media_id",
                            ("confirmMedia", "getMedia", "updateMedia", "deleteMedia"),
                        ),
                    ),
                    200: _success(
                        "The library already holds these bytes; no upload is needed.", _ref("PresignDuplicate")
                    ),
                },
                (400, 413),
                body=_json_body("PresignRequest"),
                description="Errors: VALIDATION_ERROR, UNSUPPORTED_MEDIA_TYPE, FILE_TOO_LARGE.",
            )
        },
        "/v1/media/{media_id}/confirm": {
            "post": _operation(
                "confirmMedia",
                "Verify the uploaded bytes and confirm the media record",
                "media",
                {
                    200: _success(
                        "The confirmed record (the existing one when the bytes were a duplicate).", _body("Media")
                    )
                },
                (400, 404),
                parameters=[media_id],
                description="Errors: FILE_NOT_UPLOADED, FILE_SIZE_MISMATCH, CONTENT_HASH_MISMATCH, "
                "UNSUPPORTED_MEDIA_TYPE, NOT_FOUND (no such record, or already confirmed).",
            )
        },
        "/v1/media": {
            "get": _operation(
                "listMedia",
                "List confirmed media, newest first",
                "media",
                {200: _success("A page of media records.", _envelope("media", "Media", paged=True))},
                (400,),
                parameters=[
                    _query("tag", {"type": "string", "pattern": TAG_PATTERN}, "Only media with this tag."),
                    _page_size(100, 50),
                    page_token,
                ],
            ),
            "post": _operation(
                "uploadMediaLegacy",
                "Legacy multipart upload (kept for backward compatibility; use presign)",
                "media",
                {
                    201: _success(
                        "The confirmed record (the existing one when the bytes were a duplicate).", _body("Media")
                    )
                },
                (400, 413),
                body={
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": _ref("LegacyUpload"),
                            "encoding": {"file": {"contentType": ", ".join(MIME_TYPES)}},
                        }
                    },
                },
                description="One part named `file`; other parts are ignored. Limits: 50 MB for images and GIFs, "
                "100 MB for video. Errors: VALIDATION_ERROR, UNSUPPORTED_MEDIA_TYPE, FILE_TOO_LARGE.",
            ),
        },
        "/v1/media/{media_id}": {
            "get": _operation(
                "getMedia",
                "One media record (pending ones too)",
                "media",
                {200: media_body},
                (404,),
                parameters=[media_id],
            ),
            "patch": _operation(
                "updateMedia",
                "Change a media record's description and tags",
                "media",
                {200: media_body},
                (400, 404, 413),
                parameters=[media_id],
                body=_json_body("UpdateMediaRequest"),
            ),
            "delete": _operation(
                "deleteMedia",
                "Delete a media record and its bytes",
                "media",
                {200: _success("The deleted record.", _body("Media"))},
                (404, 409),
                parameters=[media_id],
                description="Refused with MEDIA_IN_USE while a post that has not gone out uses it.",
            ),
        },
    }


def openapi_document(settings: FacadeSettings) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the /v1 REST API, for this facade's base URL."""
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Herald REST API",
            "version": "1",
            "description": "Publish or schedule posts to connected social profiles, and manage the media library. "
            f"Guides: {settings.base_url}/llms.txt (agents), {settings.base_url}/auth.md (credentials).",
        },
        "servers": [{"url": settings.base_url}],
        "security": [{"apiKey": []}],
        "tags": [
            {"name": "profiles", "description": "Connected destination profiles."},
            {"name": "credits", "description": "The organization's credit balance and ledger."},
            {"name": "posts", "description": "Posts: create, list, edit, cancel, retry."},
            {"name": "media", "description": "The media library: presign, confirm, manage."},
        ],
        "paths": _paths(),
        "components": {
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key beginning `svc_`, created in the dashboard: "
                    "`Authorization: Bearer svc_…`. OAuth access tokens are refused here (they belong at /mcp).",
                }
            },
            "schemas": _schemas(),
            "responses": _error_responses(),
            "parameters": {
                "page_token": {
                    "name": "page_token",
                    "in": "query",
                    "required": False,
                    "description": "The `next_page_token` of the previous page.",
                    "schema": {"type": "string"},
                },
                "Idempotency-Key": {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "description": "The same key with the same request within 24 hours answers the first response "
                    "again and creates nothing; with a different request: 409 IDEMPOTENCY_KEY_REUSED.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"^[!-~]([ -~]*[!-~])?$"},
                },
            },
            "headers": {
                "X-Credits-Remaining": {
                    "description": "The organization's credit balance after this request.",
                    "required": True,
                    "schema": {"type": "integer"},
                },
                "WWW-Authenticate": {
                    "description": 'Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource", '
                    'with error="invalid_token" when a credential was sent.',
                    "required": True,
                    "schema": {"type": "string"},
                },
            },
        },
    }
