"""Inputs and outputs of the ``sandbox`` ability, validated at ``actions.start``.

The code is parsed here (``ast.parse``: parsing, never running) so a syntax error or a missing
function is a -32602 naming ``code`` or ``function`` before any sandbox is built.
"""

from __future__ import annotations

import ast
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

MAX_CODE = 100_000
MAX_TESTS = 500
MAX_TEST_JSON = 100_000


class TestCase(BaseModel):
    """One call of the function and what it must do: return ``expected`` or raise ``raises``."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=100, description="default test_<index>")
    args: list[Any] = Field(default_factory=list, description="positional arguments (JSON values)")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="keyword arguments (JSON values)")
    expected: Any = Field(default=None, description="the JSON value the call must return")
    raises: str | None = Field(default=None, min_length=1, max_length=100,
                               description="or: the exception type name the call must raise")
    tolerance: float = Field(default=0.0, ge=0.0, le=1.0,
                             description="relative and absolute tolerance for numbers (0: exact)")
    timeout_s: float | None = Field(default=None, ge=0.1, le=60,
                                    description="wall clock for this test (default: limits.test_timeout_s)")

    @model_validator(mode="before")
    @classmethod
    def _one_expectation(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("expected" in data) == ("raises" in data and data["raises"] is not None):
            raise ValueError("give exactly one of expected (the return value) or raises (an exception type)")
        return data

    @model_validator(mode="after")
    def _bounded(self) -> TestCase:
        for key in self.kwargs:
            if not key.isidentifier():
                raise ValueError(f"kwargs key {key[:40]!r} is not a Python identifier")
        if self.raises is not None and not self.raises.isidentifier():
            raise ValueError("raises must be an exception type name such as ValueError")
        size = len(json.dumps([self.args, self.kwargs, self.expected], default=str))
        if size > MAX_TEST_JSON:
            raise ValueError(f"test larger than {MAX_TEST_JSON} characters of JSON")
        return self


class Limits(BaseModel):
    """Limits of each sandbox process (a killed one is replaced for the remaining tests)."""

    model_config = ConfigDict(extra="forbid")
    cpu_s: int = Field(default=10, ge=1, le=60, description="CPU seconds per sandbox process")
    mem_mb: int = Field(default=256, ge=64, le=2048, description="address space per sandbox process")
    test_timeout_s: float = Field(default=5.0, ge=0.1, le=60, description="wall clock per test")


class SandboxInputs(BaseModel):
    """A function's source and its test cases."""

    model_config = ConfigDict(extra="forbid")
    language: Literal["python"] = Field(default="python", description="only Python for now")
    code: str = Field(min_length=1, max_length=MAX_CODE, description="module source defining the function")
    function: str = Field(min_length=1, max_length=100, description="name of the function under test")
    tests: list[TestCase] = Field(min_length=1, max_length=MAX_TESTS)
    limits: Limits = Field(default_factory=Limits)
    network: Literal["denied"] = Field(default="denied",
                                       description="sandboxed code never gets a network: only 'denied'")

    @field_validator("code")
    @classmethod
    def _parses(cls, v: str) -> str:
        try:
            ast.parse(v, filename="code.py")
        except SyntaxError as exc:
            raise ValueError(f"SyntaxError at line {exc.lineno}: {exc.msg}") from None
        except ValueError as exc:  # e.g. NUL bytes
            raise ValueError(f"cannot parse: {exc}") from None
        return v

    @field_validator("function")
    @classmethod
    def _defined(cls, v: str, info: ValidationInfo) -> str:
        if not v.isidentifier():
            raise ValueError(f"{v[:40]!r} is not a Python identifier")
        code = info.data.get("code")
        if code is None:
            return v  # the code's own error is reported on its field
        names = set()
        for node in ast.parse(code).body:
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if v not in names:
            raise ValueError(f"the code defines no top-level function named {v!r}")
        return v

    @field_validator("tests")
    @classmethod
    def _names(cls, v: list[TestCase]) -> list[TestCase]:
        seen: set[str] = set()
        for i, t in enumerate(v):
            t.name = t.name or f"test_{i}"
            if t.name in seen:
                raise ValueError(f"duplicate test name {t.name!r}")
            seen.add(t.name)
        return v


class TestResult(BaseModel):
    """What one test did; ``output_sha256`` hashes the canonical JSON of the outcome."""

    name: str
    status: Literal["passed", "failed", "error", "not_run"]
    output_sha256: str | None = None
    returned_json: str | None = Field(default=None, description="canonical JSON of the return value (<= 2000 chars)")
    raised: str | None = Field(default=None, description="'Type: message' when the call raised")
    message: str = ""


class SandboxOutputs(BaseModel):
    """Per-test results, hashes of the code and the tests, and the jail they ran in."""

    language: Literal["python"]
    function: str
    code_sha256: str
    tests_sha256: str
    verdict: Literal["passed", "failed", "did_not_load"]
    total: int
    passed: int
    failed: int
    errors: int
    not_run: int
    load_error: str | None = None
    results: list[TestResult]
    sessions: int = Field(description="sandbox processes started (a killed one is replaced)")
    sandbox: dict[str, Any] = Field(description="the confinement the code ran under")
