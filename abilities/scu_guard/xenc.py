"""The cross-encoder: a small transformer fine-tuned by this project, reading a constraint and a claim together.

Why: the rules read what their grammar reaches; a claim told in other words ("the keratin treatment
was done by Tom, a junior stylist") escapes them. The cross-encoder reads the constraint and the claim
with the text of the chunks it cites in one pass and gives P(the claim contradicts the constraint).
It starts from the pretrained MiniLM-L6 weights (all-MiniLM-L6-v2, Apache-2.0) and was fine-tuned by
``training/xenc_train.py`` from a seed on the project's development sets only (each case says only
whether the claim breaks some constraint, so it learns by multiple instances: a case's score is the
highest over its constraints).

Deterministic: int8 ONNX run by onnxruntime with one intra-op and one inter-op thread, sequential
execution, one pair per run (an int8 network quantizes its input with a scale taken from the whole
batch, so a score must never depend on what else was scored with it); model and tokenizer files pinned
by SHA-256 (a file that differs is refused, never run). Nothing is downloaded: both files ship in the
package. Loaded on first use.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
MODEL_PATH = HERE / "xenc.onnx"
TOKENIZER_PATH = HERE / "xenc_tokenizer.json"
MODEL_SHA256 = ""
TOKENIZER_SHA256 = ""
MAX_LEN = 128  # tokens per pair: the constraint first, then the claim and its chunks, cut at the end
CHUNK_SEP = " | "
THRESHOLD = 0.5  # a score at or above this calls the pair a contradiction
CLEAR_BELOW = 0.1  # a suspected finding whose constraint scores below this is cleared
TOP_K = 3  # constraints read per claim: the ones sharing most words with it (see ``relevant``)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on at by for with from as is are was were be been must may not no any all "
    "each every only than more less before after it its this that these those who which".split())

_LOCK = threading.Lock()
_LOADED: tuple[Any, Any] | None = None


class ModelFileError(RuntimeError):
    """A shipped file is missing or is not the pinned one."""


def _pinned(path: Path, sha256: str) -> bytes:
    if not path.is_file():
        raise ModelFileError(f"cross-encoder file missing: {path.name}")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ModelFileError(f"{path.name} sha256 {digest} is not the pinned {sha256}")
    return data


def claim_with_chunks(claim: str, chunk_texts: Sequence[str] = ()) -> str:
    """The second text of a pair: the claim, then the texts of the chunks it cites (the claim first, so
    that a cut at ``MAX_LEN`` takes chunk text, never the claim)."""
    return CHUNK_SEP.join([claim.strip(), *(t.strip() for t in chunk_texts)])


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower()) if w not in _STOP}


def relevant(constraints: Sequence[str], claim: str, chunk_texts: Sequence[str] = (),
             k: int = TOP_K) -> list[int]:
    """Indices of the ``k`` constraints sharing most words (five-letter stems) with the claim (counted
    twice) and its chunks, by original order on ties. Why: a claim breaks a constraint it speaks of;
    reading only these keeps the cost per case fixed however many constraints the lock holds."""
    said, cited = _stems(claim), _stems(" ".join(chunk_texts))

    def weight(i: int) -> float:
        words = _stems(constraints[i])
        return (2 * len(words & said) + len(words & cited)) / math.sqrt(len(words) or 1)

    return sorted(sorted(range(len(constraints)), key=lambda i: (-weight(i), i))[:k])


def tokenizer(data: bytes | None = None) -> Any:
    """A ``tokenizers`` tokenizer over the shipped file (or given bytes), cutting pairs at ``MAX_LEN``."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str((data if data is not None else _pinned(TOKENIZER_PATH, TOKENIZER_SHA256)).decode())
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LEN, strategy="only_second")
    return tok


def encode(tok: Any, constraint: str, claim_text: str) -> tuple[list[int], list[int], list[int]]:
    """(input ids, attention mask, token type ids) of one pair; training uses the very same function."""
    enc = tok.encode(constraint, claim_text)
    return list(enc.ids), list(enc.attention_mask), list(enc.type_ids)


def open_session(model_path: Path = MODEL_PATH, model_sha256: str = MODEL_SHA256,
                 tokenizer_path: Path = TOKENIZER_PATH, tokenizer_sha256: str = TOKENIZER_SHA256) -> tuple[Any, Any]:
    """(onnxruntime session, tokenizer), each refused unless its file's hash is the pinned one."""
    model = _pinned(model_path, model_sha256)
    tok = tokenizer(_pinned(tokenizer_path, tokenizer_sha256))
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"]), tok


def loaded() -> tuple[Any, Any]:
    """The shared (session, tokenizer) over the shipped files (built once, thread-safe)."""
    global _LOADED
    if _LOADED is None:
        with _LOCK:
            if _LOADED is None:
                _LOADED = open_session()
    return _LOADED


def score_with(sess: Any, tok: Any, constraint: str, claim_text: str) -> float:
    """P(contradiction) of one pair with a given session and tokenizer."""
    import numpy as np

    ids, mask, types = encode(tok, constraint, claim_text)
    feed = {"input_ids": np.array([ids], dtype=np.int64), "attention_mask": np.array([mask], dtype=np.int64),
            "token_type_ids": np.array([types], dtype=np.int64)}
    return float(sess.run(None, feed)[0][0])


def xenc_score(constraint: str, claim_with_chunks: str) -> float:
    """P(the claim, read with the chunks it cites, contradicts this constraint); see ``claim_with_chunks``."""
    sess, tok = loaded()
    return score_with(sess, tok, constraint, claim_with_chunks)
