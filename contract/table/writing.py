"""Operations of the writing tools: the brand voice, recent posts, destination limits, the dry
run of a post and the generation catalogue (docs/writing-tools.md)."""

from __future__ import annotations

from herald.brand.v1 import brand_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2

from contract import analytics_lists, brand, preview, writing
from contract.operation import Operation, Tool
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="getBrandVoice",
        method="GET",
        path="/v1/brand-voice",
        summary="The organization's brand voice, or the one in effect for a profile",
        tag="brand",
        rpc=rpc_path(brand_pb2, "BrandVoiceService", "GetBrandVoice"),
        request=brand.GetBrandVoiceRequest,
        responses={200: brand.BrandVoice},
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
        request=brand.UpdateBrandVoiceRequest,
        responses={200: brand.BrandVoice},
        errors=("NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE"),
        description="Replaces the whole document: fields not sent are cleared. With `expected_version`, refused "
        "with CONFLICT unless that is the current version. Posts are checked against the never-publish phrases "
        "from the next request on, and again when they go out.",
    ),
)

ROWS += (
    Operation(
        id="validatePosts",
        method="POST",
        path="/v1/posts:validate",
        summary="Check a post exactly as creation would, for every profile, creating nothing",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ValidatePosts"),
        request=writing.ValidatePostsRequest,
        responses={200: writing.ValidationReport},
        errors=("PAYLOAD_TOO_LARGE",),
        description="The body of POST /v1/posts. Answers 200 with `valid` (whether creation would accept it), "
        "one verdict per profile (each problem with the code creation would answer: platform limits counted "
        "each platform's way, media rules, never-publish phrases), problems of the request as a whole, and "
        "whether the balance covers the deliveries (`deliverable`). A malformed body is a 400 as at creation.",
        tool=Tool(
            name="validate_post",
            title="Check a post before creating it",
            description="Dry-run create_post with the same arguments: for every profile, whether the post would "
            "be accepted, its length as that platform counts it against the limit, and every problem (too long, "
            "media the platform refuses, a never-publish phrase of the brand voice), plus whether the credit "
            "balance covers the deliveries. Creates and charges nothing. Use it to fix a draft before create_post.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="previewPosts",
        method="POST",
        path="/v1/posts:preview",
        summary="Show a post as each destination would publish it, creating nothing",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "PreviewPosts"),
        request=writing.PreviewPostsRequest,
        responses={200: preview.PostPreview},
        errors=("PAYLOAD_TOO_LARGE",),
        description="The body of POST /v1/posts. Answers 200 with, for every profile, each text it would send "
        "(title, post, thread items, first comment; the profile's customizations applied) counted the platform's "
        "way against that text's limit, the media each part attaches, the dry run's problems (the verdicts of "
        "POST /v1/posts:validate) and warnings. Creates and charges nothing.",
        tool=Tool(
            name="preview_post",
            title="Preview a post on every destination",
            description="Show a post before creating it, with the same arguments as create_post: for every profile, "
            "the text each part will have there (customizations applied), its length as that platform counts it "
            "against the limit, the media attached, and every problem and warning (the checks of validate_post). "
            "Hosts with MCP Apps render one card per destination, with a button to schedule it. Creates and "
            "charges nothing.",
            read_only=True,
            idempotent=True,
            ui="ui://herald/post-preview",
        ),
    ),
    Operation(
        id="listRecentPosts",
        method="GET",
        path="/v1/posts:recent",
        summary="Published posts, newest first by the time they went out",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListRecentPosts"),
        request=writing.ListRecentPostsRequest,
        responses={200: analytics_lists.RecentPostList},
        errors=(),
        tool=Tool(
            name="get_recent_posts",
            title="Read recently published posts",
            description="Read what the organization already published, newest first (text as delivered, "
            "platform, when it went out, the platform's post id and URL, and its latest metrics: impressions, likes, "
            "reposts… as read so far, absent when not read or not given), optionally for one profile or platform. "
            "Use it to keep a consistent voice, avoid repeating a recent post and see what worked. Paged: pass "
            "next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="listDestinationLimits",
        method="GET",
        path="/v1/destination-limits",
        summary="The real rules of each connected profile's platform",
        tag="writing",
        rpc=rpc_path(profiles_pb2, "ProfileService", "GetDestinationLimits"),
        request=writing.DestinationLimitsRequest,
        responses={200: writing.DestinationLimitsList},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_destination_limits",
            title="Read each destination's limits",
            description="For each connected profile (or the slugs given), its platform's real text limit and how "
            "that platform counts (X: weighted, every URL 23; Bluesky: graphemes and 3000 bytes; Mastodon: "
            "characters with URLs as 23; Threads: emoji by their bytes; …), the title rule, the post types and "
            "the media each takes, and media size caps. Write to these before create_post.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getProfileLimits",
        method="GET",
        path="/v1/profiles/{slug}/limits",
        summary="The real rules of one profile's platform",
        tag="writing",
        rpc=rpc_path(profiles_pb2, "ProfileService", "GetDestinationLimits"),
        request=writing.ProfileLimitsRequest,
        responses={200: writing.SingleDestinationLimits},
        errors=("NOT_FOUND",),
    ),
)
