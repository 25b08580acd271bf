"""The authorization server's key set (RFC 7517): one EC P-256 key, made on first request.

Access tokens are opaque, so nothing is signed with it yet; the key set is real so that clients
and tools that fetch `jwks_uri` get a valid document, and a future signed artefact (ID tokens,
signed metadata) has its key published ahead of use.
"""

from __future__ import annotations

import json
from datetime import datetime

from joserfc.jwk import ECKey
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import oauth_signing_keys


async def public_keys(conn: AsyncConnection, now: datetime) -> list[dict[str, str]]:
    rows = (await conn.execute(select(oauth_signing_keys.c.public_jwk).order_by(oauth_signing_keys.c.created_at))).all()
    if not rows:
        key = ECKey.generate_key("P-256")
        public = {**key.as_dict(private=False), "kid": key.thumbprint(), "use": "sig", "alg": "ES256"}
        await conn.execute(
            insert(oauth_signing_keys).values(
                kid=public["kid"],
                public_jwk=json.dumps(public),
                private_pem=key.as_pem(private=True).decode(),
                created_at=now,
            )
        )
        return [public]
    return [json.loads(r.public_jwk) for r in rows]
