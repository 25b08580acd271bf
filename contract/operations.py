"""The operation table: every public operation once, with its HTTP route, its core method, its
request and response shapes, the error codes it answers with and, where agents have it, its MCP
tool. The facade registers the /v1 routes, builds `tools/list` and `tools/call`, and assembles
openapi.json from this table alone (facades/rest/operations.py, facades/mcp/tools.py,
facades/discovery/openapi.py).

What a row holds: contract/operation.py. Every /v1 route takes an API key (`svc_…`); every tool
an OAuth access token for {base_url}/mcp. The scope a token needs is the core method's (its
policy, served in the catalog), so it is not repeated here."""

from __future__ import annotations

from herald.brand.v1 import brand_pb2
from herald.credits.v1 import credits_pb2
from herald.media.v1 import media_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2

from contract import requests as rq
from contract import resources as rs
from contract.operation import Operation, Tool
from contract.requests import rpc_path


def _presign_status(upload: media_pb2.Upload) -> int:
    # A duplicate creates nothing: 200, not 201 (docs/media.md).
    return 200 if upload.duplicate else 201


_POSTS = "create, list, edit, cancel and retry posts"
_POST_LINKS = ("getPost", "updatePost", "cancelPost", "retryPost", "listPostOutbox")
_MEDIA_LINKS = ("confirmMedia", "getMedia", "updateMedia", "deleteMedia")

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        id="listProfiles",
        method="GET",
        path="/v1/profiles",
        summary="List the organization's connected profiles, in slug order",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "ListProfiles"),
        request=rq.ListProfilesRequest,
        responses={200: rs.ProfileList},
        errors=("VALIDATION_ERROR",),
        tool=Tool(
            name="list_profiles",
            title="List connected profiles",
            description="List the social profiles connected to the organization (slug, platform as `connector`, "
            "display name, tags), in slug order, optionally only those with a tag. Use the slugs in "
            "create_post's `profiles`. Paged: pass next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getProfile",
        method="GET",
        path="/v1/profiles/{slug}",
        summary="One profile",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "GetProfile"),
        request=rq.GetProfileRequest,
        responses={200: rs.Profile},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="getCredits",
        method="GET",
        path="/v1/credits",
        summary="The organization's credit balance, plan and most recent ledger entries",
        tag="credits",
        rpc=rpc_path(credits_pb2, "CreditsService", "GetCreditAccount"),
        request=rq.GetCreditsRequest,
        responses={200: rs.CreditAccount},
        errors=("VALIDATION_ERROR",),
    ),
    Operation(
        id="listLedgerEntries",
        method="GET",
        path="/v1/credits/ledger",
        summary="The credit ledger, newest first",
        tag="credits",
        rpc=rpc_path(credits_pb2, "CreditsService", "ListLedgerEntries"),
        request=rq.ListLedgerRequest,
        responses={200: rs.LedgerPage},
        errors=("VALIDATION_ERROR",),
    ),
    Operation(
        id="createPosts",
        method="POST",
        path="/v1/posts",
        summary="Publish or schedule one post per named profile",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CreatePosts"),
        request=rq.CreatePostsRequest,
        responses={201: rs.CreatedPosts},
        errors=(
            "VALIDATION_ERROR",
            "INVALID_MEDIA",
            "INVALID_MEDIA_COMBINATION",
            "IDEMPOTENCY_KEY_REUSED",
            "PAYLOAD_TOO_LARGE",
        ),
        description="All or nothing: every check passes for every profile, or nothing is created. Each "
        "destination's text limit is checked as that platform counts; nothing is ever truncated. A post "
        "costs credits when it goes out; at zero credits it fails with failure_reason insufficient_credits.",
        links=("post_id", "$response.body#/posts/0/id", _POST_LINKS),
        tool=Tool(
            name="create_post",
            title="Create or schedule a post",
            description="Publish a post now, or schedule it with schedule_at, to one or more connected profiles "
            "(slugs from list_profiles) on a microblogging, photo-sharing, short-video or video platform: one "
            "post per profile, all or nothing. Each platform's own length limit and media rules are checked; "
            "nothing is truncated, an error names the profile, the count and the limit. Attach media_ids from "
            "create_media + confirm_media. Send an idempotency_key to retry safely: the same key and arguments "
            "answer the first result again. Returns the created posts with their ids and status.",
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
            "(its slug, the handle list_profiles shows), one platform (`connector`), one status (scheduled, "
            "queued, publishing, published, failed, canceled) or a schedule window. A failed post says why in "
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
            description="Read one post by id: its status (scheduled, queued, publishing, published, failed, "
            "canceled), the published URL once out, or why it failed.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updatePost",
        method="PATCH",
        path="/v1/posts/{post_id}",
        summary="Edit a scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "UpdatePost"),
        request=rq.UpdatePostRequest,
        responses={200: rs.Post},
        errors=(
            "VALIDATION_ERROR",
            "INVALID_MEDIA",
            "INVALID_MEDIA_COMBINATION",
            "NOT_FOUND",
            "INVALID_POST_STATE",
            "PAYLOAD_TOO_LARGE",
        ),
        description="Only while the post is `scheduled` or `queued` (INVALID_POST_STATE otherwise); absent fields "
        "are kept. The new content and media are checked against the destination's rules.",
        tool=Tool(
            name="update_post",
            title="Edit a post",
            description="Change the content, schedule_at or media_ids of a post that is still scheduled or queued; "
            "fields left out keep their value, media_ids replaces the attachments ([] removes them). The "
            "platform's rules are checked again. A post that is publishing or done cannot change.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="cancelPost",
        method="DELETE",
        path="/v1/posts/{post_id}",
        summary="Cancel a scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CancelPost"),
        request=rq.CancelPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        tool=Tool(
            name="cancel_post",
            title="Cancel a post",
            description="Cancel a post that is still scheduled or queued, so it never goes out. Returns the post, "
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
        id="presignMedia",
        method="POST",
        path="/v1/media/presign",
        summary="Register an upload and get a short-lived upload URL",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "CreateUpload"),
        request=rq.PresignRequest,
        responses={201: rs.PresignResult, 200: rs.PresignDuplicate},
        choose=_presign_status,
        errors=("VALIDATION_ERROR", "UNSUPPORTED_MEDIA_TYPE", "FILE_TOO_LARGE", "PAYLOAD_TOO_LARGE"),
        description="201: PUT the bytes to `upload_url` (Content-Type equal to mime_type), then confirm. 200: the "
        "library already holds these bytes (by content_hash); no upload is needed.",
        links=("media_id", "$response.body#/media_id", _MEDIA_LINKS),
        tool=Tool(
            name="create_media",
            title="Start a media upload",
            description="Register an image, GIF or video for the media library and get a short-lived upload URL. "
            "Then PUT the raw bytes to upload_url with the Content-Type header the result names (the bytes go "
            "straight to storage, not through this tool), and call confirm_media. With content_hash (SHA-256) "
            "of bytes already in the library the result says duplicate and nothing needs uploading.",
            output=rs.PresignTicket,
            adapt=rs.PresignTicket.from_upload,
        ),
    ),
    Operation(
        id="confirmMedia",
        method="POST",
        path="/v1/media/{media_id}/confirm",
        summary="Verify the uploaded bytes and confirm the media record",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "ConfirmMedia"),
        request=rq.ConfirmMediaRequest,
        responses={200: rs.Media},
        errors=(
            "FILE_NOT_UPLOADED",
            "FILE_SIZE_MISMATCH",
            "CONTENT_HASH_MISMATCH",
            "UNSUPPORTED_MEDIA_TYPE",
            "NOT_FOUND",
        ),
        description="Returns the confirmed record (the existing one when the bytes were a duplicate). NOT_FOUND: "
        "no such record, or already confirmed.",
        tool=Tool(
            name="confirm_media",
            title="Confirm an upload",
            description="Finalize an upload after its bytes were PUT to the upload URL: checks size, SHA-256 and "
            "the real file type, and returns the media record whose media_id create_post takes in media_ids. "
            "FILE_NOT_UPLOADED means the bytes have not landed yet.",
            idempotent=True,
        ),
    ),
    Operation(
        id="listMedia",
        method="GET",
        path="/v1/media",
        summary="List confirmed media, newest first",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "ListMedia"),
        request=rq.ListMediaRequest,
        responses={200: rs.MediaList},
        errors=("VALIDATION_ERROR",),
        tool=Tool(
            name="list_media",
            title="List media",
            description="List the confirmed images, GIFs and videos of the organization's media library, newest "
            "first, optionally by tag; their media_id goes in create_post's media_ids. Paged: pass "
            "next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="uploadMediaLegacy",
        method="POST",
        path="/v1/media",
        summary="Legacy multipart upload (kept for backward compatibility; use presign)",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "UploadMedia"),
        request=rq.UploadMediaRequest,
        responses={201: rs.Media},
        errors=("VALIDATION_ERROR", "UNSUPPORTED_MEDIA_TYPE", "FILE_TOO_LARGE", "PAYLOAD_TOO_LARGE"),
        description="One part named `file`; other parts are ignored. Limits: the presign limits for images and "
        "GIFs, 100 MB for video. Returns the confirmed record (the existing one when the bytes were a duplicate).",
        body_media_type="multipart/form-data",
    ),
    Operation(
        id="getMedia",
        method="GET",
        path="/v1/media/{media_id}",
        summary="One media record (pending ones too)",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "GetMedia"),
        request=rq.GetMediaRequest,
        responses={200: rs.Media},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="updateMedia",
        method="PATCH",
        path="/v1/media/{media_id}",
        summary="Change a media record's description and tags",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "UpdateMedia"),
        request=rq.UpdateMediaRequest,
        responses={200: rs.Media},
        errors=("VALIDATION_ERROR", "NOT_FOUND", "PAYLOAD_TOO_LARGE"),
    ),
    Operation(
        id="deleteMedia",
        method="DELETE",
        path="/v1/media/{media_id}",
        summary="Delete a media record and its bytes",
        tag="media",
        rpc=rpc_path(media_pb2, "MediaService", "DeleteMedia"),
        request=rq.DeleteMediaRequest,
        responses={200: rs.Media},
        errors=("NOT_FOUND", "MEDIA_IN_USE"),
        description="Refused with MEDIA_IN_USE while a post that has not gone out uses it.",
    ),
)

OPERATIONS += (
    Operation(
        id="getBrandVoice",
        method="GET",
        path="/v1/brand-voice",
        summary="The organization's brand voice, or the one in effect for a profile",
        tag="brand",
        rpc=rpc_path(brand_pb2, "BrandVoiceService", "GetBrandVoice"),
        request=rq.GetBrandVoiceRequest,
        responses={200: rs.BrandVoice},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_brand_voice",
            title="Read the brand voice",
            description="Read how this organization writes before drafting a post: the voice in words, its tone, "
            "audience, approved example posts to imitate, preferred terms (use X instead of Y), emoji and hashtag "
            "habits, signature hashtags, and the never-publish phrases: a post containing one of them is refused "
            "(NEVER_PUBLISH_PHRASE), so never write them. Pass a profile slug to get the voice in effect for that "
            "profile (its override applied).",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updateBrandVoice",
        method="PUT",
        path="/v1/brand-voice",
        summary="Save a new version of the brand voice (or of a profile's override)",
        tag="brand",
        rpc=rpc_path(brand_pb2, "BrandVoiceService", "UpdateBrandVoice"),
        request=rq.UpdateBrandVoiceRequest,
        responses={200: rs.BrandVoice},
        errors=("NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE"),
        description="Replaces the whole document: fields not sent are cleared. With `expected_version`, refused "
        "with CONFLICT unless that is the current version. Posts are checked against the never-publish phrases "
        "from the next request on, and again when they go out.",
    ),
)

TAGS = {
    "profiles": "Connected destination profiles.",
    "credits": "The organization's credit balance and ledger.",
    "posts": f"Posts: {_POSTS}.",
    "media": "The media library: presign, confirm, manage.",
    "brand": "The brand voice: how the organization writes and what it never publishes.",
}
OPERATIONS_BY_ID = {op.id: op for op in OPERATIONS}
TOOLS = {op.tool.name: op for op in OPERATIONS if op.tool is not None}
