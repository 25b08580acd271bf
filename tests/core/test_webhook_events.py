"""The event catalogue the core sends (core/webhooks/events.py) and the contract's table of each
type's `data` model (contract/events.py) name the same types. Pure: no process is started."""

from __future__ import annotations

from contract.events import EVENT_DATA
from core.webhooks.events import EVENT_TYPES


def test_every_event_type_has_its_data_model_and_no_other_is_listed() -> None:
    assert set(EVENT_DATA) == set(EVENT_TYPES)
