"""Chooses the object storage backend (HERALD_STORAGE_BACKEND)."""

from __future__ import annotations

from core.settings import CoreSettings
from core.storage.base import ObjectStorage


def object_storage(settings: CoreSettings) -> ObjectStorage:
    if settings.storage_backend == "gcs":
        from core.storage.gcs import GcsStorage  # imports google-cloud-storage only when used

        return GcsStorage(settings)
    from core.storage.local import LocalStorage

    return LocalStorage(settings)
