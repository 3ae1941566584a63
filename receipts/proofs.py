"""Tree heads and Merkle proofs as every log driver offers them.

A driver keeps an in-memory tree (``_tree`` with ``size``, ``inclusion_proof`` and
``consistency_proof``, guarded by ``_tree_lock``), a writer queue that signs a tree head when handed
``("sign", future)``, and ``get(seq)``; this mixin turns those into the public proof methods, so the
SQLite and PostgreSQL drivers answer them with the same code.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from receipts.merkle import leaf_hash

if TYPE_CHECKING:
    import queue

    from receipts.log import Record


class TreeProofs:
    """``tree_size``, signed tree heads, inclusion and consistency proofs over a driver's tree."""

    _tree: Any
    _tree_lock: threading.Lock
    _queue: queue.SimpleQueue[Any]

    def get(self, seq: int) -> Record | None:
        raise NotImplementedError

    @property
    def tree_size(self) -> int:
        return self._tree.size

    def sign_tree_head(self) -> dict[str, Any]:
        """Sign the current tree head (after everything queued before this call) and return it."""
        fut: Future[dict[str, Any]] = Future()
        self._queue.put(("sign", fut))
        return fut.result()

    async def sign_tree_head_async(self) -> dict[str, Any]:
        """``sign_tree_head`` without blocking the event loop."""
        fut: Future[dict[str, Any]] = Future()
        self._queue.put(("sign", fut))
        return await asyncio.wrap_future(fut)

    def inclusion_proof(self, seq: int, sth: dict[str, Any]) -> dict[str, Any]:
        """Proof that record ``seq`` is leaf ``seq - 1`` of the tree under the signed head ``sth``."""
        size = sth["tree_size"]
        if not 1 <= seq <= size:
            raise KeyError(seq)
        with self._tree_lock:
            proof = self._tree.inclusion_proof(seq - 1, size)
        rec = self.get(seq)
        if rec is None:
            raise KeyError(seq)
        return {"seq": seq, "leaf_index": seq - 1, "tree_size": size, "leaf_hash": leaf_hash(rec.body).hex(),
                "record_hash": rec.hash, "proof": [p.hex() for p in proof], "tree_head": sth}

    def consistency_proof(self, old_size: int, new_size: int | None = None) -> list[str]:
        """RFC 9162 consistency proof between two sizes (empty for the empty old tree)."""
        if old_size == 0:
            return []
        with self._tree_lock:
            return [p.hex() for p in self._tree.consistency_proof(old_size, new_size)]
