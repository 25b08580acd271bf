"""`herald worker`: the publisher process.

The publish queue (claiming due posts with FOR UPDATE SKIP LOCKED under a lease) arrives with
posts (issue 3). Until then the worker checks its database connection, then waits for SIGTERM,
so `herald serve` already supervises the process set production runs.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from sqlalchemy import text

from core.db.engine import create_engine
from core.settings import CoreSettings

log = logging.getLogger(__name__)


async def run_worker(settings: CoreSettings) -> None:
    engine = create_engine(settings, pool_size=2)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        log.info("worker ready (mode=%s)", settings.publish_mode)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await engine.dispose()
