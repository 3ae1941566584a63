"""The pair model: the shipped file is the pinned one, inference is deterministic, training is seeded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from abilities.scu_guard import pair_model
from abilities.scu_guard.pair_features import DIM, features

ROWS = [
    ("Only the vault supervisor may open a sealed bag at the depot.", "A trainee opened a sealed bag.", "typed only_agent"),
    ("Crews must wear high-visibility vests.", "Crews did not wear vests on Tuesday.", "lexicon require"),
    ("Haul trucks must not exceed 15 mph on the ramp.", "Haul trucks drove at 12 mph.", "none"),
    ("Lasers must never be aimed at the audience.", "The lasers were aimed at the ceiling.", "typed forbid"),
]


def test_the_shipped_model_is_the_pinned_file() -> None:
    assert pair_model.MODEL_PATH.is_file()
    assert pair_model.file_sha256() == pair_model.MODEL_SHA256


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "pair_model.onnx"
    data = bytearray(pair_model.MODEL_PATH.read_bytes())
    data[-1] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(pair_model.ModelFileError, match="sha256"):
        pair_model.open_session(bad)
    with pytest.raises(pair_model.ModelFileError, match="missing"):
        pair_model.open_session(tmp_path / "absent.onnx")


def test_inference_is_deterministic_within_and_across_processes() -> None:
    first = pair_model.probabilities(ROWS)
    assert first == pair_model.probabilities(ROWS)
    assert first == [pair_model.probabilities([r])[0] for r in ROWS]  # batch size does not change a score
    assert all(0.0 <= p <= 1.0 for p in first)
    code = ("import json, sys; from abilities.scu_guard import pair_model; "
            f"print(json.dumps(pair_model.probabilities({ROWS!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert json.loads(out.stdout) == first


def test_features_are_stable_hashes_of_the_pair() -> None:
    a = features(*ROWS[0])
    assert a == features(*ROWS[0]) and all(0 <= i < DIM for i in a)
    assert a != features(ROWS[0][0], ROWS[0][1], "none")  # the hint is part of the input


def test_training_is_deterministic_from_the_seed(tmp_path: Path) -> None:
    """Two trainings on the same rows and seed give the same ONNX file, byte for byte."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import numpy as np

    from abilities.scu_guard.pair_features import matrix
    from abilities.scu_guard.training.train import export, train

    x = matrix([r for r in ROWS] * 4)
    y = np.array([[1.0], [1.0], [0.0], [0.0]] * 4, dtype=np.float32)
    digests = [export(train(x, y, seed=3, epochs=3, hidden=4), DIM, tmp_path / f"m{i}.onnx") for i in range(2)]
    assert digests[0] == digests[1]
