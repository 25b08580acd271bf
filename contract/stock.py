"""Licensed stock photos (docs/stock.md): the search and its results, sourcing and its answer.

Preset, provider and destination are plain strings here, not enumerations: an unknown value is
the core's to refuse with its own code (UNKNOWN_PRESET, UNKNOWN_PROVIDER, VALIDATION_ERROR), as
docs/api.md, "Errors" lists them, not a schema error."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.stock.v1 import stock_pb2
from pydantic import Field

from contract.base import InPath, Request, Response

PRESETS = "square (1:1, the default, publishable everywhere), portrait (4:5), landscape (1.91:1) or story (9:16)"
Provider = Field(default="stock_a", max_length=40, description="stock_a (default) or stock_b.")


class SearchStockRequest(Request):
    """Search licensed photos: free, creates nothing."""

    query: str = Field(min_length=1, max_length=200, description="What the photos should show.")
    preset: str = Field(default="square", max_length=40, description=f"The crop the photos are for: {PRESETS}.")
    count: int = Field(default=12, ge=1, le=30, description="How many results, 1 to 30 (default 12).")
    provider: str = Provider

    def to_proto(self) -> stock_pb2.SearchStockRequest:
        return stock_pb2.SearchStockRequest(
            query=self.query, preset=self.preset, count=self.count, provider=self.provider
        )


class Attribution(Response):
    """The credit the provider requires with the photo (stock_b): "Photo by {photographer} on
    {source}", each linked, with the provider's referral parameters already on the links."""

    photographer: str
    photographer_url: str
    source: str
    source_url: str


def attribution(message: stock_pb2.StockResult | stock_pb2.SourcedMedia) -> dict[str, str] | None:
    if not message.HasField("attribution"):
        return None
    a = message.attribution
    return {
        "photographer": a.photographer,
        "photographer_url": a.photographer_url,
        "source": a.source,
        "source_url": a.source_url,
    }


class StockResult(Response):
    source_ref: str = Field(description="The photo's handle at its source: give it to source_media.")
    provider: Literal["stock_a", "stock_b"]
    preview_url: str = Field(description="A small rendition to show.")
    mime_type: str
    width: int = Field(description="The original's width in pixels.")
    height: int = Field(description="The original's height in pixels.")
    alt_text: str
    attribution: Attribution | None = Field(description="Null when no credit is required (stock_a).")


class StockSearch(Response):
    provider: Literal["stock_a", "stock_b"]
    preset: str
    query: str
    results: list[StockResult]

    @classmethod
    def from_proto(cls, r: stock_pb2.SearchStockResponse) -> dict[str, Any]:
        return {
            "provider": r.provider,
            "preset": r.preset,
            "query": r.query,
            "results": [
                {
                    "source_ref": p.source_ref,
                    "provider": p.provider,
                    "preview_url": p.preview_url,
                    "mime_type": p.mime_type,
                    "width": p.width,
                    "height": p.height,
                    "alt_text": p.alt_text,
                    "attribution": attribution(p),
                }
                for p in r.results
            ],
        }


class SourceMediaRequest(Request):
    """Turn chosen photos into library media: cropped to the preset, charged per image delivered."""

    source_refs: list[str] = Field(min_length=1, max_length=10, description="The chosen photos' handles, 1 to 10.")
    preset: str = Field(default="square", max_length=40, description=f"The crop: {PRESETS}.")
    destination: str = Field(
        default="",
        max_length=40,
        description="Where the photos will be posted (a platform key, e.g. instagram): a preset that cannot reach "
        "it is refused with PRESET_DESTINATION and `valid_for`, before anything is fetched or charged.",
    )
    provider: str = Provider
    query: str = Field(default="", max_length=500, description="The search the photos came from, kept on the media.")

    def to_proto(self) -> stock_pb2.SourceMediaRequest:
        return stock_pb2.SourceMediaRequest(
            source_refs=self.source_refs,
            preset=self.preset,
            destination=self.destination,
            provider=self.provider,
            query=self.query,
        )


class SourcedMedia(Response):
    media_id: str = Field(description="Usable in a post's media_ids at once.")
    alt_text: str
    provider: Literal["stock_a", "stock_b"]
    source_ref: str
    attribution: Attribution | None


class SourceFailure(Response):
    source_ref: str
    code: str = Field(
        description="NOT_FOUND, FOREIGN_HOST, TOO_LARGE, NOT_AN_IMAGE, FETCH_FAILED, TIMEOUT, PROVIDER_ERROR, "
        "RATE_LIMITED or STORAGE_FAILED."
    )
    message: str


class SourcingError(Response):
    code: str = Field(description="A stable code, e.g. SOURCE_FAILED or INSUFFICIENT_CREDITS.")
    message: str


class Sourcing(Response):
    kind: Literal["media", "run"] = Field(
        description="media: the images exist now. run: the sourcing outlasted the call; read it by run_id."
    )
    run_id: str | None = Field(description="Null when kind is media.")
    status: Literal["ready", "running", "failed"] = Field(
        description="ready: the images exist. A run is running, then ready or failed (nothing charged)."
    )
    requested_count: int
    delivered_count: int = Field(description="What was delivered, and charged.")
    media_ids: list[str]
    media: list[SourcedMedia]
    failures: list[SourceFailure] = Field(description="Photos that failed to save: not charged.")
    error: SourcingError | None = Field(description="Why a run failed; null otherwise.")

    @classmethod
    def from_proto(cls, r: stock_pb2.SourceMediaResponse) -> dict[str, Any]:
        return {
            "kind": r.kind,
            "run_id": r.run_id or None,
            "status": r.status,
            "requested_count": r.requested_count,
            "delivered_count": r.delivered_count,
            "media_ids": list(r.media_ids),
            "media": [
                {
                    "media_id": m.media_id,
                    "alt_text": m.alt_text,
                    "provider": m.provider,
                    "source_ref": m.source_ref,
                    "attribution": attribution(m),
                }
                for m in r.media
            ],
            "failures": [{"source_ref": f.source_ref, "code": f.code, "message": f.message} for f in r.failures],
            "error": {"code": r.error.code, "message": r.error.message} if r.HasField("error") else None,
        }


class GetSourcingRunRequest(Request):
    run_id: Annotated[
        str, InPath(), Field(min_length=1, max_length=64, description="The run_id source_media answered.")
    ]

    def to_proto(self) -> stock_pb2.GetSourcingRunRequest:
        return stock_pb2.GetSourcingRunRequest(run_id=self.run_id)
