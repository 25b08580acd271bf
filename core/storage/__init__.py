"""The embedded object storage server (`herald storage`).

Also the object storage interface of the media library (`base.ObjectStorage`) and its two backends:
`local` (files under the data directory, uploaded through this server with HMAC-signed URLs) and
`gcs` (Google Cloud Storage, V4 signed URLs); `factory.object_storage(settings)` picks one.
"""
