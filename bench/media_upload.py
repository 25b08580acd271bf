"""Bench: a 1 GB video through the real API path — presign, PUT to the signed URL, confirm —
beside a plain copy of the same bytes on the same disk, in the same run.

    .venv/bin/python -m bench.media_upload [--size-bytes 1000000000] [--backend sqlite|postgresql]

1. Writes a source file: an MP4 `ftyp` header then random bytes, --size-bytes in all (the presign
   video limit is 1 GB = 1,000,000,000 bytes), in a temp directory on the data disk.
2. Plain copy: shutil.copyfile to a temp destination on the same disk, then fsync, timed.
3. Starts the real core, facade and storage processes (harness/stack.py, running_stack), bootstraps an
   organization, `POST /v1/media/presign`, then a separate uploader process streams the file to
   the upload URL (1 MiB reads), timed; then `POST /v1/media/{id}/confirm` through the facade,
   timed (the core streams the object back, SHA-256 and sniffs it).
4. Prints MB/s of copy, upload and confirm, the upload/copy ratio, and the peak RSS (VmHWM) of the
   core, storage and facade processes; writes the figures as JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.load import copy_with_fsync
from bench.readings import peak_rss_mib, stack_pids, wait_until_quiet
from bench.runs import write_result
from bench.seed import MIB, video_bytes
from harness.stack import ROOT, bootstrap_org, database, running_stack

MB = 1_000_000

UPLOADER = """
import sys, httpx
url, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
def body():
    with open(path, "rb") as f:
        while chunk := f.read(1024 * 1024):
            yield chunk
r = httpx.put(url, content=body(), headers={"Content-Type": "video/mp4", "Content-Length": str(size)}, timeout=600)
print(r.status_code, r.text[:200])
sys.exit(0 if r.status_code < 300 else 1)
"""


def write_source(path: Path, size: int) -> str:
    """The video to upload (seed.video_bytes), written to `path`; returns its SHA-256."""
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        for chunk in video_bytes(size, digest, block=8 * MIB):
            f.write(chunk)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-bytes", type=int, default=1_000_000_000)
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--wait-quiet", type=float, default=60.0)
    # The uploading client: curl (native, streams the file) or httpx (Python, 1 MiB reads). On
    # 2 CPUs a Python client competes with the storage server for CPU.
    parser.add_argument("--client", default="curl", choices=["curl", "httpx"])
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="herald-media-bench-", dir=ROOT / "var" if (ROOT / "var").exists() else None))
    try:
        source = work / "source.mp4"
        expected = write_source(source, args.size_bytes)
        wait_until_quiet(args.wait_quiet)
        copy_s, copy_fsync_s = copy_with_fsync(source, work / "copy.mp4")
        (work / "copy.mp4").unlink()
        with database(args.backend, work) as url, running_stack(url, work) as stack:
            key = bootstrap_org(url, "bench-media", credits=10)
            headers = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=stack.base_url, timeout=600) as http:
                ticket = http.post(
                    "/v1/media/presign",
                    headers=headers,
                    json={
                        "filename": "big.mp4",
                        "mime_type": "video/mp4",
                        "size_bytes": args.size_bytes,
                    },
                ).json()
                wait_until_quiet(args.wait_quiet)
                started = time.perf_counter()
                if args.client == "curl":
                    command = [
                        "curl",
                        "-sS",
                        "--fail-with-body",
                        "-T",
                        str(source),
                        "-H",
                        "Content-Type: video/mp4",
                        ticket["upload_url"],
                    ]
                else:
                    command = [sys.executable, "-c", UPLOADER, ticket["upload_url"], str(source), str(args.size_bytes)]
                up = subprocess.run(command, capture_output=True, text=True)
                upload_s = time.perf_counter() - started
                if up.returncode != 0:
                    raise SystemExit(f"upload failed: {up.stdout} {up.stderr[-500:]}")
                started = time.perf_counter()
                confirmed = http.post(f"/v1/media/{ticket['media_id']}/confirm", headers=headers)
                confirm_s = time.perf_counter() - started
            record = confirmed.json()
            if confirmed.status_code != 200 or record.get("content_hash") != expected:
                raise SystemExit(f"confirm failed: {confirmed.status_code} {confirmed.text[:300]}")
            pids = stack_pids(stack)
            rss = {
                name: peak_rss_mib(pids[role])
                for name, role in (("core", "core0"), ("storage", "storage"), ("facade", "facade"))
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size_mb = args.size_bytes / MB
    result = {
        "bench": "media upload (presign, PUT, confirm)",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "size_bytes": args.size_bytes,
        "backend": args.backend,
        "client": args.client,
        "copy_s": round(copy_s, 2),
        "copy_fsync_s": round(copy_fsync_s, 2),
        "upload_s": round(upload_s, 2),
        "confirm_s": round(confirm_s, 2),
        "copy_mb_s": round(size_mb / copy_s, 1),
        "upload_mb_s": round(size_mb / upload_s, 1),
        "confirm_mb_s": round(size_mb / confirm_s, 1),
        "upload_vs_copy": round(copy_s / upload_s, 2),
        "peak_rss_mib": {k: round(v, 1) for k, v in rss.items()},
    }
    print(f"{size_mb:,.0f} MB  backend={args.backend}")
    print(
        f"  plain copy + fsync   {result['copy_s']:6.2f} s  {result['copy_mb_s']:7.1f} MB/s"
        f"  (fsync {result['copy_fsync_s']:.2f} s of it)"
    )
    print(
        f"  upload (signed PUT)  {result['upload_s']:6.2f} s  {result['upload_mb_s']:7.1f} MB/s"
        f"  = {result['upload_vs_copy']:.2f} of the copy"
    )
    print(f"  confirm (SHA-256)    {result['confirm_s']:6.2f} s  {result['confirm_mb_s']:7.1f} MB/s")
    print("  peak RSS MiB: " + ", ".join(f"{k} {v}" for k, v in result["peak_rss_mib"].items()))
    print(f"wrote {write_result('media_upload', None, result).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
