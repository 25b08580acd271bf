"""Bench: the core's peak memory and the wall time of N concurrent sign-ins (argon2id, 64 MiB each).

    .venv/bin/python -m bench.sign_in_memory [--concurrency 8] [--hash-concurrency 2]

Starts the real core and facade on a fresh SQLite database, bootstraps one user, then sends N
`AccountService.SignIn` calls at once over gRPC and prints the core's peak RSS (VmHWM) before
and after, and the wall time. `--hash-concurrency` sets HERALD_PASSWORD_HASH_CONCURRENCY, the
number of hashes one core process computes at once (the others wait).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.readings import peak_rss_mib, stack_pids

EMAIL = "memory@example.com"
PASSWORD = "a long password"


async def sign_in_at_once(target: str, count: int) -> float:
    import grpc
    from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

    async with grpc.aio.insecure_channel(target) as channel:
        stub = accounts_pb2_grpc.AccountServiceStub(channel)
        request = accounts_pb2.SignInRequest(email=EMAIL, password=PASSWORD)
        start = time.perf_counter()
        await asyncio.gather(*(stub.SignIn(request) for _ in range(count)))
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sign_in_memory", description=__doc__.split("\n")[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--hash-concurrency", type=int, default=2)
    args = parser.parse_args(argv)

    from harness.stack import bootstrap_org, database, running_stack

    with tempfile.TemporaryDirectory() as tmp, database("sqlite", Path(tmp)) as url:
        workdir = Path(tmp) / "stack"
        workdir.mkdir()
        extra = {"HERALD_PASSWORD_HASH_CONCURRENCY": str(args.hash_concurrency)}
        with running_stack(url, workdir, **extra) as stack:
            bootstrap_org(url, "memory", email=EMAIL)
            core = stack_pids(stack)["core0"]
            before = peak_rss_mib(core)
            elapsed = asyncio.run(sign_in_at_once(stack.core_target, args.concurrency))
            after = peak_rss_mib(core)
    print(
        f"{args.concurrency} concurrent sign-ins, hash concurrency {args.hash_concurrency}: "
        f"{elapsed * 1000:.0f} ms; core peak RSS {before:.0f} -> {after:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
