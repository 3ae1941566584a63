"""The pair model: this project's own small network, shipped as int8 ONNX, run with onnxruntime on the CPU.

Why: a reading that rests on a guess (a doer known only by name, an order of events told in other
words, the lexicon alone) should reject only when a second, independent judgement agrees. The
model scores a (constraint, claim, hint) triple from hashed features (``pair_features``); it was
trained by ``abilities/scu_guard/training/train.py`` from a seed on pairs generated from the typed
forms and on the project's older labelled sets, never on the sets its figures are reported on.

Deterministic: one intra-op and one inter-op thread, sequential execution, a file pinned by
SHA-256 (a file that differs is refused, never run). Nothing is downloaded: the file ships in the
package. Loaded on first use.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MODEL_PATH = Path(__file__).with_name("pair_model.onnx")
MODEL_SHA256 = "dfeac3bed16c7a6c6a4a1fa9492bbcc916dcd3ddf7949f7c4e4cdb58e8e023c4"
THRESHOLD = 0.5  # a guessed finding stands when the model's probability reaches this

_LOCK = threading.Lock()
_SESSION: Any = None


class ModelFileError(RuntimeError):
    """The shipped model file is missing or is not the pinned one."""


def file_sha256(path: Path = MODEL_PATH) -> str:
    """SHA-256 of a model file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_pinned(path: Path, sha256: str, what: str) -> bytes:
    """A model file's bytes, refused unless its SHA-256 is the pinned one (a changed file never runs)."""
    if not path.is_file():
        raise ModelFileError(f"{what} file missing: {path.name}")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ModelFileError(f"{what} {path.name} sha256 {digest} is not the pinned {sha256}")
    return data


def open_session(path: Path = MODEL_PATH, sha256: str = MODEL_SHA256) -> Any:
    """An onnxruntime session over a model file, refused unless the file's hash is the pinned one."""
    data = read_pinned(path, sha256, "pair model")
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def session() -> Any:
    """The shared session over the shipped model (built once, thread-safe)."""
    global _SESSION
    if _SESSION is None:
        with _LOCK:
            if _SESSION is None:
                _SESSION = open_session()
    return _SESSION


def probabilities(rows: list[tuple[str, str, str]]) -> list[float]:
    """P(contradiction) for each (constraint, claim, hint). Rows are scored one at a time: the int8
    network quantizes its input with a scale taken from the whole batch, so a score must never depend
    on what else was scored with it."""
    from abilities.scu_guard.pair_features import matrix

    sess = session()
    return [float(sess.run(None, {"x": matrix([row])})[0][0, 0]) for row in rows]


def agrees(constraint: str, claim: str, hint: str) -> bool:
    """Does the model call this pair a contradiction? (the ``Arbiter`` of ``combined.detect``)"""
    return probabilities([(constraint, claim, hint)])[0] >= THRESHOLD


def clears_below(below: float) -> Callable[[str, str, Sequence[str], str], bool]:
    """A ``combined.Clearer``: an unsure finding is dropped when the model's probability is under ``below``
    (measured by ``bench/scu_guard_model.py``; the service passes no clearer)."""
    def clears(constraint: str, claim: str, chunk_texts: Sequence[str], hint: str) -> bool:
        return probabilities([(constraint, claim, hint)])[0] < below
    return clears
