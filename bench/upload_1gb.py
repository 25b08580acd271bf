"""Bench: one 1 GiB upload through the embedded storage server's signed URL, beside a plain copy.

    .venv/bin/python -m bench.upload_1gb [--size-mib 1024] [--wait-quiet 120] [--no-json]

1. Writes a source file of --size-mib random MiB (os.urandom) in a temp directory on the data disk.
2. Plain copy: shutil.copyfile of the source to a temp destination on the same disk, then fsync
   (the storage server fsyncs an object before renaming it into place), timed.
3. Starts the real `herald storage` process; a separate uploader process PUTs the source to a
   signed URL (LocalStorage.upload_url) with a streaming httpx client (1 MiB reads, Content-Length).
4. A separate hasher process does what confirm does on the core side: LocalStorage.read() of the
   object, SHA-256 over the stream; the digest must equal the source's.
5. Prints throughput (MB/s, decimal) of copy, upload and hash, and the peak RSS (VmHWM) of the
   storage process (before and after), the uploader and the hasher; writes the figures as JSON
   under bench/results/ unless --no-json. Removes every temp file and stops the storage process.

The source stays in the page cache (the machine has far more RAM than 3 GiB), so reads are from
memory in every step; the writes go to disk through the fsync.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Only what the role processes need at import: their peak RSS is part of the figures.
from bench.readings import busy_fraction, peak_rss_mib, wait_until_quiet

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024

KEY = "org_bench/med_upload"
CONTENT_TYPE = "video/mp4"


# ----------------------------------------------------------------------------- child roles


def role_upload(url: str, source: str) -> dict[str, Any]:
    import httpx

    size = os.path.getsize(source)

    def body():  # a generator of the file's bytes
        with open(source, "rb", buffering=0) as f:
            while chunk := f.read(MIB):
                yield chunk

    headers = {"Content-Type": CONTENT_TYPE, "Content-Length": str(size)}
    started = time.perf_counter()
    with httpx.Client(timeout=600) as client:
        response = client.put(url, content=body(), headers=headers)
    seconds = time.perf_counter() - started
    return {
        "status": response.status_code,
        "body": response.text[:200],
        "seconds": seconds,
        "rss_mib": peak_rss_mib("self"),
    }


def role_hash(data_dir: str) -> dict[str, Any]:
    from core.settings import CoreSettings
    from core.storage.local import LocalStorage

    storage = LocalStorage(CoreSettings(data_dir=Path(data_dir)))

    async def run() -> tuple[str, int]:
        digest, size = hashlib.sha256(), 0
        async for chunk in storage.read(KEY):
            digest.update(chunk)
            size += len(chunk)
        return digest.hexdigest(), size

    started = time.perf_counter()
    sha, size = asyncio.run(run())
    return {"sha256": sha, "size": size, "seconds": time.perf_counter() - started, "rss_mib": peak_rss_mib("self")}


def run_role(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.upload_1gb", "--role", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- orchestration


def make_source(path: Path, size_mib: int) -> str:
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        for _ in range(size_mib):
            block = os.urandom(MIB)
            digest.update(block)
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--wait-quiet", type=float, default=120.0)
    parser.add_argument("--no-json", action="store_true")
    parser.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role:
        result = role_upload(*args.role[1:]) if args.role[0] == "upload" else role_hash(*args.role[1:])
        print(json.dumps(result))
        return 0

    from bench.load import copy_with_fsync
    from bench.runs import write_result
    from core.settings import CoreSettings
    from core.storage.local import LocalStorage
    from harness.stack import Stack, free_port, stack_env, stop_processes, wait_for_http

    workdir = Path(tempfile.mkdtemp(prefix="herald-upload-bench-", dir=os.environ.get("TMPDIR")))
    proc: subprocess.Popen | None = None
    size = args.size_mib * MIB
    try:
        print(f"writing a {args.size_mib} MiB random source file in {workdir} ...", file=sys.stderr)
        source = workdir / "source.bin"
        source_sha = make_source(source, args.size_mib)

        port = free_port()
        url_base = f"http://127.0.0.1:{port}"
        env = stack_env("sqlite+aiosqlite:///unused.db", workdir, HERALD_STORAGE_PUBLIC_URL=url_base)
        data_dir = workdir / "data"
        # The storage server alone: a Stack of one process (its settings, its log in workdir).
        proc = Stack(env["HERALD_DATABASE_URL"], workdir, "", "", env).spawn(
            "core", "storage", "--listen", f"127.0.0.1:{port}", log_name="storage"
        )
        wait_for_http(f"{url_base}/healthz", proc)
        storage_rss_idle = peak_rss_mib(proc.pid)

        busy = wait_until_quiet(args.wait_quiet)
        print(f"machine busy {busy:.0%} before measuring", file=sys.stderr)

        copy_seconds, _ = copy_with_fsync(source, workdir / "copy.bin")
        os.unlink(workdir / "copy.bin")

        storage = LocalStorage(CoreSettings(data_dir=data_dir, storage_public_url=url_base))
        url = storage.upload_url(KEY, content_type=CONTENT_TYPE, size_bytes=size)
        busy_upload_start = busy_fraction(0.2)
        upload = run_role("upload", url, str(source), env=env)
        if upload["status"] != 200:
            raise RuntimeError(f"upload failed: {upload}")
        storage_rss_peak = peak_rss_mib(proc.pid)

        hashed = run_role("hash", str(data_dir), env=env)
        if hashed["sha256"] != source_sha or hashed["size"] != size:
            raise RuntimeError(f"stored object differs from the source: {hashed}")

        mb = size / 1e6
        rows = [
            ("plain copy (copyfile + fsync)", copy_seconds),
            ("upload: PUT signed URL -> storage -> fsync", upload["seconds"]),
            ("confirm: LocalStorage.read + SHA-256", hashed["seconds"]),
        ]
        print(f"\n{args.size_mib} MiB ({mb:,.0f} MB), one run; machine busy {busy:.0%} before measuring\n")
        print(f"| {'step':<44} | {'seconds':>8} | {'MB/s':>7} |")
        print(f"|{'-' * 46}|{'-' * 10}|{'-' * 9}|")
        for name, seconds in rows:
            print(f"| {name:<44} | {seconds:8.2f} | {mb / seconds:7.0f} |")
        print(f"\nupload / copy: {copy_seconds / upload['seconds']:.2f} (the target is at least 0.70)")
        print(f"\n| {'process':<44} | {'peak RSS (VmHWM) MiB':>20} |")
        print(f"|{'-' * 46}|{'-' * 22}|")
        for name, rss in (
            ("storage, after start (idle)", storage_rss_idle),
            ("storage, after the upload", storage_rss_peak),
            ("uploader (httpx client)", upload["rss_mib"]),
            ("hasher (core-side read + SHA-256)", hashed["rss_mib"]),
        ):
            print(f"| {name:<44} | {rss:20.1f} |")
        if not args.no_json:
            result = {
                "bench": "upload_1gb",
                "size_bytes": size,
                "busy_before": busy,
                "busy_at_upload_start": busy_upload_start,
                "copy_seconds": copy_seconds,
                "upload_vs_copy": copy_seconds / upload["seconds"],
                "upload": upload,
                "hash": hashed,
                "storage_rss_idle_mib": storage_rss_idle,
                "storage_rss_peak_mib": storage_rss_peak,
                "cpus": os.cpu_count(),
            }
            print(f"\nwrote {write_result('upload_1gb', None, result).relative_to(ROOT)}")
        return 0
    finally:
        if proc is not None:
            stop_processes([proc])
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
