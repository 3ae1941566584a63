"""datasets.put of a large corpus in chunks through a real server, next to baselines of the same run.

Figures: the wall time and MiB/s of putting a generated corpus (default 16 MiB of JSON text) in
524,288-character chunks over one ToolBus connection, up to the committed answer (validation,
canonical JSON, SHA-256, the log append of every chunk record, the cache file); then reading it
back with datasets.get pages. Baselines: the same bytes written to a file with fsync (the floor
for anything durable), and the same number of session.whoami round trips (the transport's share).
Run: .venv/bin/python bench/datasets_put.py [--mib 16] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.spine_common import ratio, show, write_result  # noqa: E402
from tests.support import MetisServer, ToolBus  # noqa: E402

CHUNK = 524_288


def corpus(mib: float) -> list[dict[str, str]]:
    docs, size, i = [], 0, 0
    line = "payments latency rose after the deploy; checkout retried and the web frontend alerted. "
    while size < mib * 1024 * 1024:
        text = f"incident {i}: " + line * 20
        docs.append({"doc_id": f"d{i}", "title": f"note {i}", "text": text})
        size += len(text) + 40
        i += 1
    return docs


async def run(mib: float, data_dir: Path) -> dict:
    docs = corpus(mib)
    text = json.dumps(docs)
    pieces = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]
    server = MetisServer(data_dir).start()
    try:
        async with ToolBus.connect(server) as tb:
            t0 = time.perf_counter()
            ans = await tb.call("datasets.put", {"kind": "corpus", "name": "bench", "chunk": {"index": 0, "data": pieces[0],
                                                                                           "final": len(pieces) == 1}})
            for i, piece in enumerate(pieces[1:], 1):
                ans = await tb.call("datasets.put", {"kind": "corpus", "name": "bench", "upload_id": ans["upload_id"],
                                                     "chunk": {"index": i, "data": piece, "final": i == len(pieces) - 1}},
                                    timeout=600)
            put_s = time.perf_counter() - t0
            assert ans["committed"], ans
            t0 = time.perf_counter()
            got, offset = [], 0
            while offset is not None:
                page = (await tb.call("datasets.get", {"kind": "corpus", "name": "bench", "offset": offset}))["page"]
                got.append(page["data"])
                offset = page.get("next_offset")
            get_s = time.perf_counter() - t0
            assert hashlib.sha256("".join(got).encode()).hexdigest() == ans["sha256"]
            t0 = time.perf_counter()
            for _ in range(len(pieces)):
                await tb.call("session.whoami", {})
            rtt_s = time.perf_counter() - t0
    finally:
        server.stop()
    payload = text.encode()
    with tempfile.NamedTemporaryFile(dir=data_dir.parent) as fh:
        t0 = time.perf_counter()
        for i in range(0, len(payload), CHUNK):
            fh.write(payload[i:i + CHUNK])
        fh.flush()
        os.fsync(fh.fileno())
        file_s = time.perf_counter() - t0
    mb = len(payload) / 1024 / 1024
    return {"mib": round(mb, 2), "chunks": len(pieces), "documents": len(docs), "log_records": ans["chunks"] + 1,
            "put_s": round(put_s, 3), "put_mib_s": round(mb / put_s, 2), "get_s": round(get_s, 3),
            "get_mib_s": round(mb / get_s, 2), "baseline_file_fsync_s": round(file_s, 3),
            "baseline_whoami_round_trips_s": round(rtt_s, 4), "put_vs_file": ratio(put_s, file_s)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=16.0)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(1.0 if args.smoke else args.mib, Path(tmp) / "data"))
    show("datasets.put / datasets.get", [
        ("put (chunked, committed)", f"{r['put_s']} s", f"{r['baseline_file_fsync_s']} s file", f"{r['put_vs_file']}x"),
        ("put MiB/s", str(r["put_mib_s"]), "", ""),
        ("get (paged) MiB/s", str(r["get_mib_s"]), "", ""),
        ("transport share", f"{r['baseline_whoami_round_trips_s']} s", f"{r['chunks']} round trips", ""),
    ])
    print("wrote", write_result("datasets_put", r, smoke=args.smoke))


if __name__ == "__main__":
    main()
