"""Equations and inequalities with parameters: answers split into cases over the parameter."""

from abilities.base import AbilityError


def run_cases(req, trail, lhs, op, rhs, x, params):  # noqa: ANN001, ANN201
    raise AbilityError("unsupported", "parameters")
