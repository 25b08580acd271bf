"""Operations on the media library."""

from __future__ import annotations

from herald.media.v1 import media_pb2

from contract import media_requests as rq
from contract import media_resources as rs
from contract.operation import Operation, Tool
from contract.requests import rpc_path

_MEDIA_LINKS = ("confirmMedia", "getMedia", "updateMedia", "deleteMedia")


def _presign_status(upload: media_pb2.Upload) -> int:
    # A duplicate creates nothing: 200, not 201 (docs/media.md).
    return 200 if upload.duplicate else 201


ROWS = (
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
