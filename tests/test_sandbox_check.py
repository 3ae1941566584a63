"""The sandbox ability's pure core: equality rules, verdicts and hashes (no sandbox, no server)."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from abilities.sandbox.check import canonical, counts, judge, same
from abilities.sandbox.models import SandboxInputs
from abilities.sandbox.models import TestCase as Case


@pytest.mark.parametrize(("got", "want", "tol", "expected"), [
    (2, 2.0, 0, True), (True, 1, 0, False), (1, True, 0, False), (False, False, 0, True),
    (0.1 + 0.2, 0.3, 0, False), (0.1 + 0.2, 0.3, 1e-9, True), ([1, [2, 3]], [1, [2, 3]], 0, True),
    ([1, 2], [1, 2, 3], 0, False), ({"a": 1}, {"a": 1.0}, 0, True), ({"a": 1}, {"b": 1}, 0, False),
    ("1", 1, 0, False), (None, None, 0, True), (None, 0, 0, False), (float("nan"), float("nan"), 0, True),
])
def test_equality_rules(got, want, tol, expected):
    assert same(got, want, tol) is expected


def test_judge_values_raises_and_ended_with_hashes():
    t = Case(name="t", args=[1], expected=[1, 2])
    ok = judge(t, "value", [1, 2])
    assert ok.status == "passed" and ok.returned_json == "[1,2]"
    assert ok.output_sha256 == hashlib.sha256(b'{"value":[1,2]}').hexdigest()
    bad = judge(t, "value", [2, 1])
    assert bad.status == "failed" and bad.message == "returned [2,1], expected [1,2]"
    r = Case(name="r", raises="KeyError")
    assert judge(r, "raised", "KeyError: 'x'").status == "passed"
    wrong = judge(r, "raised", "ValueError: no")
    assert wrong.status == "failed" and wrong.message == "raised ValueError: no, expected KeyError"
    assert judge(r, "value", 3).message == "returned 3, expected it to raise KeyError"
    dead = judge(t, "ended", ("killed", "CPU time limit exceeded (RLIMIT_CPU)"))
    assert dead.status == "error" and dead.message == "killed: CPU time limit exceeded (RLIMIT_CPU)"
    assert counts([ok, bad, dead]) == {"total": 3, "passed": 1, "failed": 1, "errors": 1, "not_run": 0}
    assert canonical({"b": "é", "a": 1}) == '{"a":1,"b":"é"}'


def test_inputs_name_the_field_and_never_run_the_code():
    good = SandboxInputs(code="f = lambda x: x\n", function="f", tests=[{"expected": 1}, {"raises": "E"}])
    assert [t.name for t in good.tests] == ["test_0", "test_1"]
    with pytest.raises(ValidationError) as err:
        SandboxInputs(code="import os\nos._exit(1)\n", function="g", tests=[{"expected": 1}])
    assert err.value.errors()[0]["loc"] == ("function",)  # parsed, not run: this process is still here
    with pytest.raises(ValidationError) as err:
        SandboxInputs(code="def f(:", function="f", tests=[{"expected": 1}])
    assert err.value.errors()[0]["loc"] == ("code",)
