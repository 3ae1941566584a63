"""The cross-encoder experiment's shared reading: which constraints it reads, the pair text, hash pins."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from abilities.scu_guard.pair_model import ModelFileError
from abilities.scu_guard.training import xenc_model as xenc

CONSTRAINTS = ["Towels must be washed at 60 °C or hotter.", "Only senior stylists may perform chemical straightening.",
               "Appointments must start between 09:00 and 20:00.", "Scissors must be disinfected between clients."]


def test_relevant_picks_the_constraints_the_claim_speaks_of() -> None:
    picked = xenc.relevant(CONSTRAINTS, "Tom Hale gave Dana a chemical straightening.",
                           ["Staff: Tom Hale is a junior stylist."], k=2)
    assert 1 in picked and len(picked) == 2 and picked == sorted(picked)
    assert xenc.relevant(CONSTRAINTS, "nothing shared", k=10) == [0, 1, 2, 3]
    assert xenc.relevant(CONSTRAINTS, "nothing shared", k=2) == [0, 1]  # ties keep the lock's order


def test_the_claim_comes_before_its_chunks() -> None:
    text = xenc.claim_with_chunks(" Tom cut hair. ", ["Staff list.", " Diary. "])
    assert text == "Tom cut hair. | Staff list. | Diary."


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    model = tmp_path / xenc.MODEL_NAME
    model.write_bytes(b"not a model")
    pin = hashlib.sha256(b"not a model").hexdigest()
    model.write_bytes(b"not a model, changed")
    with pytest.raises(ModelFileError, match="is not the pinned"):
        xenc.open_session(model, pin, tmp_path / xenc.TOKENIZER_NAME, pin)
    with pytest.raises(ModelFileError, match="missing"):
        xenc.xenc_scorer(tmp_path / "absent", pin, pin)

