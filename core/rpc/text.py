"""One rule for every text field of every Herald request: no NUL characters.

PostgreSQL text cannot hold U+0000 (psycopg refuses it with DataError) and no field of the API
(docs/api.md) needs it, so a request carrying one is answered VALIDATION_ERROR before any
statement runs, on both backends alike, instead of failing inside a query.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def field_with_nul(message: Message, prefix: str = "") -> str | None:
    """The path of the first string field (or map key/value) holding a NUL, or None."""
    for field, value in message.ListFields():
        name = f"{prefix}{field.name}"
        if field.type == _STRING:
            values = value if field.is_repeated else (value,)
            if any("\x00" in v for v in values):
                return name
        elif field.type == _MESSAGE:
            if field.message_type.GetOptions().map_entry:
                for key, item in value.items():
                    if isinstance(key, str) and "\x00" in key:
                        return name
                    if isinstance(item, str) and "\x00" in item:
                        return name
                    if isinstance(item, Message) and (found := field_with_nul(item, f"{name}.")):
                        return found
                continue
            items = value if field.is_repeated else (value,)
            for item in items:
                if found := field_with_nul(item, f"{name}."):
                    return found
    return None
