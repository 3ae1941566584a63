"""Pydantic models of crl_math's inputs and outputs (validated at ``actions.start``).

Expressions are parsed by the whitelisted parser inside the validators, so a syntax error comes
back as JSON-RPC -32602 naming the field and the character position, before any worker runs.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from abilities.crl_math.parser import (
    MAX_LENGTH,
    ParseError,
    parse_equation,
    parse_expr_safe,
    parse_relation,
    parse_solve_relation,
)

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,23}$")


def _syntax(text: str, kind: str) -> str:
    try:
        if kind == "expression":
            parse_expr_safe(text, complex_ok=True)
        elif kind == "equation":
            parse_equation(text, complex_ok=True)
        elif kind == "solve":
            parse_solve_relation(text, complex_ok=True)
        else:
            parse_relation(text, complex_ok=True)
    except ParseError as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("expression too deeply structured to process") from None
    return text


def is_equation(text: str) -> bool:
    """A single '=' that is not part of '==', '!=', '<=' or '>='."""
    return re.search(r"(?<![=!<>])=(?!=)", text) is not None


class CheckStep(BaseModel):
    """One step of a client's derivation: the next expression (or equation) and its claimed rule."""

    model_config = ConfigDict(extra="forbid")

    expression: str = Field(min_length=1, max_length=MAX_LENGTH, description="next form; 'lhs = rhs' in equations")
    rule: str | None = Field(default=None, max_length=64, pattern=r"^[A-Z][A-Z0-9_]*$")
    conditions: list[str] = Field(default_factory=list, max_length=12)

    @field_validator("expression")
    @classmethod
    def _expr(cls, v: str) -> str:
        return _syntax(v, "equation" if is_equation(v) else "expression")

    @field_validator("conditions")
    @classmethod
    def _conds(cls, v: list[str]) -> list[str]:
        for c in v:
            if len(c) > 200:
                raise ValueError("a condition is longer than 200 characters")
            _syntax(c, "relation")
        return v


class Inputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: Literal["simplify", "solve", "check"]
    expression: str | None = Field(default=None, min_length=1, max_length=MAX_LENGTH)
    equation: str | None = Field(default=None, min_length=1, max_length=MAX_LENGTH,
                                 description="solve: 'lhs = rhs' or an inequality (<, <=, >, >=); check: 'lhs = rhs'")
    variable: str | None = Field(default=None, max_length=24,
                                 description="the unknown of solve; every other symbol is a parameter")
    domain: Literal["real", "complex"] = "real"
    assumptions: list[str] = Field(default_factory=list, max_length=12,
                                   description="relations that hold (solve: they restrict the unknown's domain)")
    steps: list[CheckStep] | None = Field(default=None, max_length=40)
    tests_per_step: int = Field(default=20, ge=10, le=50, description="random test points per witness")

    @field_validator("expression")
    @classmethod
    def _expression(cls, v: str | None) -> str | None:
        return None if v is None else _syntax(v, "expression")

    @field_validator("equation")
    @classmethod
    def _equation(cls, v: str | None) -> str | None:
        return None if v is None else _syntax(v, "solve")

    @field_validator("variable")
    @classmethod
    def _variable(cls, v: str | None) -> str | None:
        if v is not None and not _IDENT.match(v):
            raise ValueError("variable must be a name such as x or t1")
        return v

    @field_validator("assumptions")
    @classmethod
    def _assumptions(cls, v: list[str]) -> list[str]:
        for a in v:
            if len(a) > 200:
                raise ValueError("an assumption is longer than 200 characters")
            _syntax(a, "relation")
        return v

    @model_validator(mode="after")
    def _goal_fields(self) -> Inputs:
        if self.goal == "simplify" and not self.expression:
            raise ValueError("goal 'simplify' needs 'expression'")
        if self.goal == "solve" and not self.equation:
            raise ValueError("goal 'solve' needs 'equation' ('lhs = rhs')")
        if self.goal == "check":
            if not self.steps:
                raise ValueError("goal 'check' needs 'steps' (at least one)")
            if bool(self.expression) == bool(self.equation):
                raise ValueError("goal 'check' needs exactly one of 'expression' or 'equation' to start from")
        if self.domain == "real":  # the imaginary unit parses only in the complex domain
            texts = [("expression", self.expression), ("equation", self.equation)]
            texts += [(f"steps[{i}].expression", st.expression) for i, st in enumerate(self.steps or [])]
            for name, text in texts:
                if text is None:
                    continue
                try:
                    if name == "expression":
                        parse_expr_safe(text)
                    elif name == "equation":
                        parse_solve_relation(text)
                    elif is_equation(text):
                        parse_equation(text)
                    else:
                        parse_expr_safe(text)
                except ParseError as exc:
                    raise ValueError(f"{name}: {exc}") from None
        return self


class Outputs(BaseModel):
    model_config = ConfigDict(extra="allow")

    goal: str
    domain: str
    result: str | None = None
    solutions: list[str] | None = None
    solution_set: str | None = Field(default=None, description="solve: the answer as a sympy set over the reals")
    relation: str | None = Field(default=None, description="solve: the relation solved (=, <, <=, >, >=)")
    parameters: list[str] | None = Field(default=None, description="solve: the symbols other than the unknown")
    cases: list[dict[str, Any]] | None = Field(
        default=None, description="solve with parameters: [{when, solution_set, solutions}] covering every value")
    rejected: list[dict[str, Any]] | None = None
    equivalence_mode: Literal["identical", "conditional", "piecewise", "no_solution", "not_equivalent"]
    conditions: list[str]
    expressions: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    obligations: list[dict[str, Any]]
    witnesses: list[dict[str, Any]]
    explanation: dict[str, Any]
    invariants: dict[str, dict[str, Any]]
    latex: dict[str, Any] | None = None
    graph: dict[str, Any] | None = None
    round_trip: dict[str, Any] | None = None
