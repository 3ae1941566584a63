"""identify_sequence: the generated sample (>= 300 sequences, reproducible byte for byte), exact
contiguous matching with offsets, honest 'not available', and a custom OEIS-format directory."""

from __future__ import annotations

import gzip

from abilities.mathlas import seqgen
from abilities.mathlas.sequence import SAMPLE_DIR, build_index, identify_sequence, search


def sample_lines() -> list[str]:
    with gzip.open(SAMPLE_DIR / "stripped.gz", "rt") as fh:
        return [ln for ln in fh.read().splitlines() if ln and not ln.startswith("#")]


def test_shipped_sample_is_what_the_generator_computes():
    stripped, names = seqgen.build()
    with gzip.open(SAMPLE_DIR / "stripped.gz", "rt") as fh:
        assert fh.read().splitlines() == stripped
    with gzip.open(SAMPLE_DIR / "names.gz", "rt") as fh:
        assert fh.read().splitlines() == names
    assert len(stripped) - 1 >= 300


def test_spot_check_terms_against_their_definitions():
    rows = {ln.split(" ")[0]: [int(t) for t in ln.split(" ", 1)[1].strip(",").split(",")] for ln in sample_lines()}
    assert rows["A000045"][:10] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
    assert rows["A000108"][:8] == [1, 1, 2, 5, 14, 42, 132, 429]
    assert rows["A000041"][:10] == [1, 1, 2, 3, 5, 7, 11, 15, 22, 30]
    assert rows["A000796"][:8] == [3, 1, 4, 1, 5, 9, 2, 6]
    assert rows["A001203"][:5] == [3, 7, 15, 1, 292]
    assert rows["A000043"][:8] == [2, 3, 5, 7, 13, 17, 19, 31]
    assert rows["A002182"][:8] == [1, 2, 4, 6, 12, 24, 36, 48]
    assert rows["A000055"][:10] == [1, 1, 1, 1, 2, 3, 6, 11, 23, 47]


def test_fibonacci_example():
    r = identify_sequence([1, 1, 2, 3, 5, 8, 13, 21])
    assert r["identified"] and r["matches"][0]["a_number"] == "A000045"
    assert r["matches"][0]["offset"] == 1 and r["data"]["source"] == "builtin_sample"


def test_every_sample_sequence_is_found_from_a_window_of_its_own_terms():
    missed = []
    for ln in sample_lines():
        anum, _, rest = ln.partition(" ")
        terms = [int(t) for t in rest.strip(",").split(",")]
        start = min(2, len(terms) - 4)
        window = terms[start:start + 8]
        got = [m["a_number"] for m in identify_sequence(window, max_results=50)["matches"]]
        if anum not in got:
            missed.append(anum)
    assert missed == []


def test_no_match_and_ranking_by_a_number():
    assert identify_sequence([9, 8, 1, 7, 7, 3, 4, 1, 9])["matches"] == []
    primes = identify_sequence([2, 3, 5, 7, 11, 13])
    nums = [m["a_number"] for m in primes["matches"]]
    assert nums == sorted(nums) and "A000040" in nums


def test_missing_data_dir_is_not_available(tmp_path):
    r = identify_sequence([1, 2, 3, 4], data_dir=str(tmp_path))
    assert not r["identified"] and "not available" in r["note"] and r["matches"] == []


def test_custom_oeis_directory(tmp_path):
    for name, lines in (("stripped.gz", ["# header", "A999990 ,7,1,7,2,7,3,7,4,", "A999991 ,-5,10,-20,40,"]),
                        ("names.gz", ["A999990 Test sequence one", "A999991 Negative test"])):
        with gzip.open(tmp_path / name, "wt") as fh:
            fh.write("\n".join(lines) + "\n")
    r = identify_sequence([7, 2, 7, 3], data_dir=str(tmp_path))
    assert [(m["a_number"], m["offset"], m["name"]) for m in r["matches"]] == [("A999990", 2, "Test sequence one")]
    assert identify_sequence([-5, 10, -20, 40], data_dir=str(tmp_path))["matches"][0]["exact_prefix"] is True


def test_hash_collisions_are_filtered_by_exact_comparison():
    # Python's int hash maps -1 and -2 to the same value: the exact check must tell them apart.
    idx = build_index(["A1 ,-1,-1,-1,-1,", "A2 ,-2,-2,-2,-2,"], {}, "mem")
    assert [m["a_number"] for m in search(idx, [-2, -2, -2, -2])] == ["A2"]
