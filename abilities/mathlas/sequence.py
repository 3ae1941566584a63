"""identify_sequence: exact contiguous term match against OEIS-format bulk files.

An n-gram index (runs of 4 consecutive terms, hashed to int64, sorted in a numpy array) maps
each run to the sequences that contain it; a query's first run selects candidates, and each
candidate is confirmed by an exact comparison of every query term (arbitrary-precision ints,
compared as decimal strings). No fuzzy scoring, no model. Matches are ranked by A-number.
"""

from __future__ import annotations

import gzip
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from abilities.mathlas import bigint

GRAM = 4
SAMPLE_DIR = Path(__file__).parent / "data" / "oeis_sample"
_MASK = (1 << 63) - 1
_MUL = np.uint64(1_000_003)


@dataclass
class OeisIndex:
    """Sorted gram hashes with the sequence row they come from, plus the raw term lines."""

    source: str
    anums: list[str]
    lines: list[str]  # ",t0,t1,...," per sequence
    names: dict[str, str]
    keys: np.ndarray  # uint64, sorted
    rows: np.ndarray  # int32, aligned with keys

    @property
    def size(self) -> int:
        return len(self.anums)


def _token_hash(tok: str) -> int:
    # Python's int hash is not randomised (unlike str), so the index is reproducible.
    return hash(int(tok)) & _MASK


def _gram_hashes(hashes: np.ndarray) -> np.ndarray:
    if len(hashes) < GRAM:
        return np.empty(0, dtype=np.uint64)
    h = np.zeros(len(hashes) - GRAM + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(GRAM):
            h = h * _MUL + hashes[j: len(hashes) - GRAM + 1 + j]
    return h


def build_index(stripped_lines: list[str], names: dict[str, str], source: str) -> OeisIndex:
    """Build the n-gram index from ``stripped`` lines ("A000045 ,0,1,1,2,...,")."""
    anums: list[str] = []
    lines: list[str] = []
    key_parts: list[np.ndarray] = []
    row_parts: list[np.ndarray] = []
    for raw in stripped_lines:
        if not raw or raw.startswith("#"):
            continue
        anum, _, rest = raw.partition(" ")
        rest = rest.strip()
        if not rest.startswith(","):
            continue
        toks = [t for t in rest.strip(",").split(",") if t]
        try:
            th = np.fromiter((_token_hash(t) for t in toks), dtype=np.uint64, count=len(toks))
        except ValueError:
            continue
        row = len(anums)
        anums.append(anum)
        lines.append("," + ",".join(toks) + ",")
        g = np.unique(_gram_hashes(th))
        key_parts.append(g)
        row_parts.append(np.full(len(g), row, dtype=np.int32))
    keys = np.concatenate(key_parts) if key_parts else np.empty(0, dtype=np.uint64)
    rows = np.concatenate(row_parts) if row_parts else np.empty(0, dtype=np.int32)
    order = np.argsort(keys, kind="stable")
    return OeisIndex(source, anums, lines, names, keys[order], rows[order])


def _read_gz_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        return fh.read().splitlines()


def load_dir(directory: Path) -> OeisIndex:
    """Read ``stripped.gz`` and ``names.gz`` from a directory and index them."""
    stripped = _read_gz_lines(directory / "stripped.gz")
    names: dict[str, str] = {}
    for line in _read_gz_lines(directory / "names.gz"):
        if line and not line.startswith("#"):
            a, _, name = line.partition(" ")
            names[a] = name.strip()
    return build_index(stripped, names, str(directory))


_CACHE: dict[tuple[str, float, float], OeisIndex] = {}
_LOCK = threading.Lock()


def get_index(directory: Path) -> OeisIndex:
    """The index for a directory, built once per process and reused while the files are unchanged."""
    s, n = directory / "stripped.gz", directory / "names.gz"
    key = (str(directory.resolve()), s.stat().st_mtime, n.stat().st_mtime)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = load_dir(directory)
        return _CACHE[key]


def resolve_data_dir(data_dir: str | None) -> tuple[Path | None, str]:
    """Where to look: the argument, else ``MATHLAS_OEIS_DIR``, else the built-in sample."""
    chosen = data_dir or os.environ.get("MATHLAS_OEIS_DIR")
    if chosen:
        p = Path(chosen)
        if (p / "stripped.gz").is_file() and (p / "names.gz").is_file():
            return p, "oeis_dir"
        return None, "missing"
    return SAMPLE_DIR, "builtin_sample"


def search(index: OeisIndex, terms: list[int], max_results: int = 10) -> list[dict[str, Any]]:
    """All sequences containing ``terms`` as a contiguous run, ranked by A-number."""
    q_toks = [str(int(t)) for t in terms]
    qh = np.array([_token_hash(t) for t in q_toks], dtype=np.uint64)
    first = _gram_hashes(qh[:GRAM])[0]
    lo = int(np.searchsorted(index.keys, first, side="left"))
    hi = int(np.searchsorted(index.keys, first, side="right"))
    needle = "," + ",".join(q_toks) + ","
    found: list[tuple[str, int]] = []
    for row in sorted(set(index.rows[lo:hi].tolist())):
        line = index.lines[row]
        pos = line.find(needle)
        if pos >= 0:
            found.append((index.anums[row], line.count(",", 0, pos)))
    found.sort()
    out = []
    for anum, offset in found[:max_results]:
        out.append({"a_number": anum, "name": index.names.get(anum, ""), "offset": offset,
                    "exact_prefix": offset == 0})
    return out


def identify_sequence(terms: list[int], max_results: int = 10, data_dir: str | None = None) -> dict[str, Any]:
    """Exact contiguous match of integer terms against local OEIS-format data."""
    directory, kind = resolve_data_dir(data_dir)
    result: dict[str, Any] = {"query": [bigint.json_int(int(t)) for t in terms], "identified": False,
                              "matches": []}
    if directory is None:
        result["note"] = ("OEIS data not available: stripped.gz and names.gz were not found in the given "
                          "directory; no match is claimed")
        result["data"] = {"source": "none", "sequences": 0}
        return result
    index = get_index(directory)
    matches = search(index, terms, max_results)
    result["matches"] = matches
    result["identified"] = bool(matches)
    result["data"] = {"source": kind, "sequences": index.size}
    scope = ("the built-in sample of well-known sequences (set MATHLAS_OEIS_DIR to a directory with the OEIS "
             "stripped.gz and names.gz for the full database)" if kind == "builtin_sample"
             else f"the OEIS files in {directory.name}")
    if matches:
        result["note"] = (f"{len(matches)} exact contiguous match(es) in {scope}; ranked by A-number. An exact "
                          f"match of {len(terms)} terms is evidence, not proof, that the sequences agree beyond them")
    else:
        result["note"] = f"no sequence in {scope} contains these {len(terms)} terms contiguously"
    return result
