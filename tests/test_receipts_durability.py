"""Crash durability of the receipt log: kill -9 while many appenders write, then reopen."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from receipts.log import Entry, ReceiptLog
from receipts.verify import verify_data_dir
from tests.support import ROOT

WRITER = textwrap.dedent("""
    import asyncio, sys
    from receipts.log import Entry, ReceiptLog
    log = ReceiptLog(sys.argv[1]); log.open()
    async def appender(i):
        n = 0
        while True:
            recs = await log.append([Entry("receipt", "tick", "acme", {"appender": i, "n": n})])
            print(recs[0].seq, flush=True)
            n += 1
    async def main():
        log.bind_loop(asyncio.get_running_loop())
        await asyncio.gather(*(appender(i) for i in range(20)))
    asyncio.run(main())
""")


def test_kill9_loses_no_acknowledged_record(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    acked: list[int] = []
    deadline = time.monotonic() + 30
    while len(acked) < 3000 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.strip().isdigit():  # other lines are log output
            acked.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(acked) >= 3000
    report = verify_data_dir(tmp_path)
    assert report.ok, report
    assert report.checked >= max(acked)  # every acknowledged record survived
    log = ReceiptLog(tmp_path)
    log.open()  # the chain tail is checked on open; appends continue after it
    try:
        (rec,) = log.append_sync([Entry("receipt", "after_crash", "acme", {})])
        assert rec.seq == report.checked + 1
    finally:
        log.close()
    assert verify_data_dir(tmp_path).ok
