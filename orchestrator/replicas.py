"""One replica per action: leases on PostgreSQL, taken and released by watching the log's state records.

With several replicas on one database, each action must be run (and resumed after a restart) by
one replica at a time. ``OwnedStore`` wraps the PostgreSQL receipt log the scheduler writes to:

- a state record that shows an action not ended (created, running, waiting, revised ...) makes
  this replica take the action's lease (``WorkQueue.take``) if it does not hold it yet; a state
  record that shows it ended completes the lease;
- a background thread renews every lease of this replica in one statement (``renew_all``);
- at start-up, ``iter_control`` (what the scheduler rebuilds itself from) leaves out the records
  of every unfinished action whose lease another live replica holds, and takes the lease of the
  others: a restarted replica resumes its own actions and those of replicas that died (their
  leases lapsed), never those of replicas that are running.

Everything else is the wrapped log. The scheduler does not know it runs among replicas.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from queue import Empty, SimpleQueue
from typing import Any

import structlog

from orchestrator.lifecycle import TERMINAL, Status
from receipts.log import Entry, Record
from receipts.store import ReceiptStore, StorageUnavailable
from receipts.workqueue import Lease, WorkQueue

log = structlog.get_logger("metis.replicas")


def replica_id() -> str:
    """This process, named for operators: host, pid and a random part (a restarted pid is another replica)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def _unfinished(payload: dict[str, Any]) -> bool:
    status = (payload.get("view") or {}).get("status")
    return status is not None and Status(status) not in TERMINAL


class OwnedStore:
    """A ``ReceiptStore`` whose actions are leased to this replica (see the module docstring)."""

    def __init__(self, inner: ReceiptStore, queue: WorkQueue, owner: str | None = None) -> None:
        self._inner = inner
        self.queue = queue
        self.owner = owner or replica_id()
        self.leases: dict[str, Lease] = {}
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._seen: SimpleQueue[list[Entry] | None] = SimpleQueue()  # state records, in append order

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    # -- lifecycle -----------------------------------------------------------------------------

    def open(self) -> None:
        self._inner.open()
        self._stop.clear()
        self._renewer = threading.Thread(target=self._renew_loop, name="replica-leases", daemon=True)
        self._renewer.start()

    def close(self) -> None:
        """Stop renewing and release every lease (after the log drained), so the next replica to start
        takes this one's unfinished actions at once."""
        self._stop.set()
        self._seen.put(None)
        if self._renewer is not None:
            self._renewer.join(timeout=5)
            self._renewer = None
        self._inner.close()
        try:
            self.queue.release_all(self.owner)
        except StorageUnavailable as exc:
            log.warning("lease_release_failed", error=str(exc)[:200])
        self.queue.close()

    def _renew_loop(self) -> None:
        """Take and complete leases as state records are appended (in their order, off the appenders'
        path), and renew all of them every third of a lease."""
        every = self.queue.lease_s / 3
        next_renewal = time.monotonic() + every
        while not self._stop.is_set():
            try:
                entries = self._seen.get(timeout=max(0.0, next_renewal - time.monotonic()))
            except Empty:
                entries = []
            try:
                if entries:
                    self._observe(entries)
                if time.monotonic() >= next_renewal:
                    next_renewal = time.monotonic() + every
                    held = self.queue.renew_all(self.owner)
                    if held < len(self.leases):
                        log.warning("leases_lost", held=held, expected=len(self.leases))
            except StorageUnavailable as exc:
                log.warning("lease_update_failed", error=str(exc)[:200])
                if entries:  # the database is away: take/complete these leases on a later turn
                    self._seen.put(entries)
                    self._stop.wait(0.5)

    # -- appends: leases follow the state records ----------------------------------------------

    def _observe(self, entries: list[Entry]) -> None:
        for e in entries:
            if e.type != "state" or e.action_id is None:
                continue
            if _unfinished(e.payload):
                if e.action_id not in self.leases:
                    lease = self.queue.take(e.action_id, e.tenant, e.payload["view"].get("ability", ""), self.owner)
                    if lease is None:
                        log.warning("action_owned_elsewhere", action_id=e.action_id)
                    else:
                        self.leases[e.action_id] = lease
            else:
                lease = self.leases.pop(e.action_id, None)
                if lease is not None:
                    self.queue.complete(lease)

    def _note(self, entries: list[Entry]) -> None:
        if any(e.type == "state" for e in entries):
            self._seen.put(entries)

    async def append(self, entries: list[Entry], **kwargs: Any) -> list[Record]:
        records = await self._inner.append(entries, **kwargs)
        self._note(entries)
        return records

    def append_sync(self, entries: list[Entry], **kwargs: Any) -> list[Record]:
        records = self._inner.append_sync(entries, **kwargs)
        self._note(entries)
        return records

    def submit(self, entries: list[Entry], **kwargs: Any) -> None:
        self._inner.submit(entries, **kwargs)
        self._note(entries)

    # -- start-up: only what this replica may run ----------------------------------------------

    def iter_control(self) -> Iterator[Record]:
        records = list(self._inner.iter_control())
        latest: dict[str, Record] = {}
        for rec in records:
            if rec.type == "state" and rec.action_id is not None:
                latest[rec.action_id] = rec
        elsewhere: set[str] = set()
        for aid, rec in latest.items():
            if not _unfinished(rec.payload) or aid in self.leases:
                continue
            lease = self.queue.take(aid, rec.tenant, rec.payload["view"].get("ability", ""), self.owner)
            if lease is None:
                elsewhere.add(aid)
            else:
                self.leases[aid] = lease
        if elsewhere:
            log.info("actions_owned_by_other_replicas", count=len(elsewhere))
        return (rec for rec in records if rec.action_id not in elsewhere)


def owned(store: ReceiptStore, database_url: str) -> OwnedStore:
    """Wrap a PostgreSQL-backed store (lease length from ``METIS_LEASE_S``, default 10 s)."""
    return OwnedStore(store, WorkQueue(database_url, lease_s=float(os.environ.get("METIS_LEASE_S", "10"))))
