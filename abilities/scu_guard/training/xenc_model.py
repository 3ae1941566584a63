"""The cross-encoder's reading, shared by its training and its bench: which constraints it reads, the pair
text, the tokenization, and running an exported int8 file.

The cross-encoder (a MiniLM-L6 fine-tuned by ``xenc_train.py``) was an experiment (see "Round 8: a
fine-tuned cross-encoder" in the guard's documentation): on development sets it never saw it scored at
chance, so no model ships and the guard never calls this module. It stays so that the experiment can
be repeated: ``xenc_train.py`` writes ``xenc.onnx`` and ``xenc_tokenizer.json`` to a directory and
``bench/scu_guard_xenc.py --model DIR`` scores them next to the guard.

Deterministic: onnxruntime with one intra-op and one inter-op thread, sequential execution, one pair
per run (an int8 network quantizes its input with a scale taken from the whole batch, so a score must
never depend on what else was scored with it); files opened only when their SHA-256 is the one given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from abilities.scu_guard.pair_model import read_pinned

MODEL_NAME = "xenc.onnx"
TOKENIZER_NAME = "xenc_tokenizer.json"
MAX_LEN = 128  # tokens per pair: the constraint first, then the claim and its chunks, cut at the end
CHUNK_SEP = " | "
THRESHOLD = 0.5  # a score at or above this calls the pair a contradiction
CLEAR_BELOW = 0.1  # a suspected finding whose constraint scores below this is cleared
TOP_K = 3  # constraints read per claim: the ones sharing most words with it (see ``relevant``)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on at by for with from as is are was were be been must may not no any all "
    "each every only than more less before after it its this that these those who which".split())


def _pinned(path: Path, sha256: str) -> bytes:
    return read_pinned(path, sha256, "cross-encoder")


def claim_with_chunks(claim: str, chunk_texts: Sequence[str] = ()) -> str:
    """The second text of a pair: the claim, then the texts of the chunks it cites (the claim first, so
    that a cut at ``MAX_LEN`` takes chunk text, never the claim)."""
    return CHUNK_SEP.join([claim.strip(), *(t.strip() for t in chunk_texts)])


def stems(text: str) -> set[str]:
    """The five-letter stems of a text's words, stop words left out."""
    return {w[:5] for w in _WORD.findall(text.lower()) if w not in _STOP}


def relevant(constraints: Sequence[str], claim: str, chunk_texts: Sequence[str] = (),
             k: int = TOP_K) -> list[int]:
    """Indices of the ``k`` constraints sharing most words (five-letter stems) with the claim (counted
    twice) and its chunks, by original order on ties. Why: a claim breaks a constraint it speaks of;
    reading only these keeps the cost per case fixed however many constraints the lock holds."""
    said, cited = stems(claim), stems(" ".join(chunk_texts))

    def weight(i: int) -> float:
        words = stems(constraints[i])
        return (2 * len(words & said) + len(words & cited)) / math.sqrt(len(words) or 1)

    return sorted(sorted(range(len(constraints)), key=lambda i: (-weight(i), i))[:k])


def tokenizer(data: bytes) -> Any:
    """A ``tokenizers`` tokenizer over a tokenizer file's bytes, cutting pairs at ``MAX_LEN``."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(data.decode())
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LEN, strategy="only_second")
    return tok


def encode(tok: Any, constraint: str, claim_text: str) -> tuple[list[int], list[int], list[int]]:
    """(input ids, attention mask, token type ids) of one pair; training uses the very same function."""
    enc = tok.encode(constraint, claim_text)
    return list(enc.ids), list(enc.attention_mask), list(enc.type_ids)


def open_session(model_path: Path, model_sha256: str, tokenizer_path: Path, tokenizer_sha256: str) -> tuple[Any, Any]:
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


def score_with(sess: Any, tok: Any, constraint: str, claim_text: str) -> float:
    """P(contradiction) of one pair with a given session and tokenizer."""
    import numpy as np

    ids, mask, types = encode(tok, constraint, claim_text)
    feed = {"input_ids": np.array([ids], dtype=np.int64), "attention_mask": np.array([mask], dtype=np.int64),
            "token_type_ids": np.array([types], dtype=np.int64)}
    return float(sess.run(None, feed)[0][0])


def xenc_scorer(model_dir: Path, model_sha256: str, tokenizer_sha256: str) -> Callable[[str, str], float]:
    """``xenc_score(constraint, claim_with_chunks) -> float`` over the files of ``model_dir`` (refused unless
    their hashes are the given ones): P(the claim, read with the chunks it cites, contradicts the constraint)."""
    sess, tok = open_session(model_dir / MODEL_NAME, model_sha256, model_dir / TOKENIZER_NAME, tokenizer_sha256)

    def xenc_score(constraint: str, claim_with_chunks: str) -> float:
        return score_with(sess, tok, constraint, claim_with_chunks)

    return xenc_score
