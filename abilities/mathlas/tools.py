"""The twelve mathlas tools: one registry (name -> function, pydantic args model, description).

The ability, the MCP server and the CLI all dispatch through ``TOOLS`` and ``call_tool``, so
there is one source of truth for behaviour, bounds and JSON schemas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from abilities.mathlas import (
    bigint,
    closedform,
    formal,
    funsearch,
    numeric,
    ramanujan,
    retrieve,
    scaffold,
    sequence,
)

MAX_DPS = 1000
MAX_TERM_DIGITS = 1000


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_value(v: Any) -> str:
    if isinstance(v, bool):
        raise ValueError("must be a decimal number (as a string to keep every digit)")
    try:
        return numeric.parse_decimal(v).text
    except numeric.NumericInputError as exc:
        raise ValueError(str(exc)) from exc


class IdentifyConstantArgs(_Args):
    value: str | float | int = Field(description="the decimal value, ideally as a string with every known digit")
    basis: list[str] | None = Field(default=None, max_length=40,
                                    description=f"atoms to use (default: all): {', '.join(numeric.ATOMS)}")

    _v = field_validator("value")(lambda cls, v: _check_value(v))

    @field_validator("basis")
    @classmethod
    def _basis(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            bad = [b for b in v if b not in numeric.ATOMS]
            if bad:
                raise ValueError(f"unknown basis atom(s) {bad[:5]}; allowed: {', '.join(numeric.ATOMS)}")
        return v


class IdentifySequenceArgs(_Args):
    terms: list[int | str] = Field(
        min_length=4, max_length=200,
        description="at least 4 consecutive integer terms; a term beyond +-(2^53 - 1) must be sent as a decimal "
                    f"string (JSON numbers are doubles), at most {MAX_TERM_DIGITS} digits each")
    max_results: int = Field(default=10, ge=1, le=50)
    data_dir: str | None = Field(default=None, max_length=500,
                                 description="directory with OEIS stripped.gz/names.gz (default MATHLAS_OEIS_DIR, "
                                             "else the built-in sample)")

    @field_validator("terms", mode="before")
    @classmethod
    def _terms(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return v  # pydantic names the type error
        return [bigint.parse_int_term(t, MAX_TERM_DIGITS) for t in v]


class SearchArgs(_Args):
    query: str = Field(min_length=1, max_length=500)
    k: int = Field(default=10, ge=1, le=50)


class VerifyNumericArgs(_Args):
    value: str | float | int
    closed_form: str = Field(min_length=1, max_length=closedform.MAX_EXPR_CHARS,
                             description="closed form in the mathlas grammar, e.g. pi**2/6 or (1+sqrt(5))/2")
    dps_verify: int = Field(default=60, ge=20, le=MAX_DPS)
    min_digits: int | None = Field(default=None, ge=1, le=400)

    _v = field_validator("value")(lambda cls, v: _check_value(v))

    @field_validator("closed_form")
    @classmethod
    def _cf(cls, v: str) -> str:
        try:
            closedform.parse(v)
        except closedform.ClosedFormError as exc:
            raise ValueError(str(exc)) from exc
        return v


class ConjectureArgs(_Args):
    value: str | float | int
    max_results: int = Field(default=5, ge=1, le=20)

    _v = field_validator("value")(lambda cls, v: _check_value(v))


class VerifyFormalArgs(_Args):
    statement: str = Field(min_length=1, max_length=20_000, description="a Lean 4 proposition")
    lean: str | None = Field(default=None, max_length=100_000, description="a complete Lean snippet to check as is")
    proof: str | None = Field(default=None, max_length=50_000, description="a proof term or tactic block")


class ChecklistArgs(_Args):
    result: str = Field(min_length=1, max_length=4000, description="a corpus result's name or id, or a statement")
    problem: str = Field(default="", max_length=4000)


class ScaffoldArgs(_Args):
    problem: str = Field(min_length=1, max_length=4000)
    result: str = Field(min_length=1, max_length=4000)


class DirectiveArgs(_Args):
    problem: str = Field(min_length=1, max_length=4000)


_PARAM_BOUNDS = {"cap_set": {"n": (1, 6)},
                 "online_bin_packing": {"seed": (0, 2**31), "instances": (1, 20), "items": (1, 1000),
                                        "capacity": (100, 1000)}}


class FunsearchArgs(_Args):
    action: Literal["evaluate", "register", "status"]
    problem: Literal["cap_set", "online_bin_packing"]
    program: str | None = Field(default=None, max_length=20_000, description="Python source defining priority(...)")
    params: dict[str, int] | None = Field(default=None, description="scorer parameters (evaluate only)")
    timeout_s: float = Field(default=10.0, ge=1, le=30)

    @model_validator(mode="after")
    def _check(self) -> FunsearchArgs:
        if self.action in ("evaluate", "register") and not self.program:
            raise ValueError(f"program is required for action {self.action!r}")
        for k, v in (self.params or {}).items():
            bounds = _PARAM_BOUNDS[self.problem].get(k)
            if bounds is None:
                raise ValueError(f"params.{k} is not a parameter of {self.problem}")
            if not bounds[0] <= v <= bounds[1]:
                raise ValueError(f"params.{k} must be in [{bounds[0]}, {bounds[1]}]")
        return self


class AddFindingArgs(_Args):
    name: str = Field(min_length=1, max_length=300)
    statement: str = Field(min_length=1, max_length=5000)
    slogan: str = Field(default="", max_length=500)
    field: str = Field(default="", max_length=100)
    preconditions: list[str] | None = Field(default=None, max_length=30)
    source: str = Field(default="", max_length=500)
    formal_name: str = Field(default="", max_length=200)


Tool = tuple[Callable[..., dict[str, Any]], type[BaseModel], str]

TOOLS: dict[str, Tool] = {
    "identify_constant": (numeric.identify_constant, IdentifyConstantArgs,
                          "Identify a decimal constant: PSLQ proposes closed forms at low precision, an independent "
                          "sympy re-evaluation over held-out digits verifies; unidentified when nothing survives."),
    "identify_sequence": (sequence.identify_sequence, IdentifySequenceArgs,
                          "Exact contiguous match of integer terms against OEIS-format data (n-gram index)."),
    "search_existing_math": (retrieve.search_existing_math, SearchArgs,
                             "Hybrid BM25 + dense search (RRF) over a corpus of well-known results and live findings."),
    "search_formal_math": (formal.search_formal_math, SearchArgs,
                           "Offline search of curated Mathlib declaration names for the corpus results."),
    "verify_numeric": (numeric.verify_numeric, VerifyNumericArgs,
                       "Check a claimed closed form against a decimal value with mpmath and sympy at high precision."),
    "verify_formal": (formal.verify_formal, VerifyFormalArgs,
                      "Check Lean 4 with the real kernel when a toolchain is on PATH, else UNDETERMINED; "
                      "sorry/admit are rejected."),
    "applicability_checklist": (scaffold.applicability_checklist, ChecklistArgs,
                                "Atomic preconditions of a result as questions for the AI to falsify."),
    "mapping_scaffold": (scaffold.mapping_scaffold, ScaffoldArgs,
                         "Needs <-> guarantees structure between a problem and a result, with an answer template."),
    "conjecture_relation": (ramanujan.conjecture_relation, ConjectureArgs,
                            "Richer-basis PSLQ and Ramanujan-Machine continued-fraction search; hits locked by a "
                            "deeper re-evaluation (provenance conjectured_relation)."),
    "funsearch": (funsearch.funsearch, FunsearchArgs,
                  "FunSearch harness: evaluate / register / status of priority programs run in a sandbox "
                  "(scorers cap_set, online_bin_packing)."),
    "search_directive": (scaffold.search_directive, DirectiveArgs,
                         "A structured web-search plan (arXiv queries, categories, named results); no web call."),
    "add_finding": (retrieve.add_finding, AddFindingArgs,
                    "Append a result found elsewhere to the live corpus; searchable at once."),
}


def validate_args(tool: str, args: dict[str, Any]) -> BaseModel:
    """Validate arguments for a tool (raises KeyError for an unknown tool, ValidationError for bad args)."""
    return TOOLS[tool][1].model_validate(args)


def call_tool(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Validate and run one tool."""
    fn, _, _ = TOOLS[tool]
    model = validate_args(tool, args)
    return fn(**model.model_dump())


def input_schema(tool: str) -> dict[str, Any]:
    """The tool's JSON schema (object at the root)."""
    return TOOLS[tool][1].model_json_schema()
