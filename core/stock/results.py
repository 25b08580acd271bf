"""What stock searches and sourcings answer, as the service hands them to the servicer."""

from __future__ import annotations

from dataclasses import dataclass

from core.stock.providers import StockPhoto


@dataclass(frozen=True, slots=True)
class Searched:
    provider: str
    preset: str
    query: str
    results: list[StockPhoto]


@dataclass(frozen=True, slots=True)
class Delivered:
    media_id: str
    photo: StockPhoto


@dataclass(frozen=True, slots=True)
class Failure:
    source_ref: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Sourced:
    requested: int
    delivered: list[Delivered]
    failures: list[Failure]
    balance: int
    # A sourcing that outlasted its call: its run's id and status (`running`, `ready`, `failed`).
    run_id: str = ""
    status: str = "ready"
    error: tuple[str, str] | None = None  # (code, message) of a failed run
