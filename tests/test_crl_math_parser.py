"""The whitelisted parser: what it accepts, what it refuses (with positions), and its bounds."""

from __future__ import annotations

import pytest
import sympy

from abilities.crl_math.parser import (
    MAX_LENGTH,
    ParseError,
    evaluated,
    parse_equation,
    parse_expr_safe,
    parse_relation,
)

x, y = sympy.symbols("x y")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(x^2-9)/(x+3)", (x**2 - 9) / (x + 3)),
        ("2x^2 + 3(x+1)", 2 * x**2 + 3 * x + 3),
        ("-x^2", -(x**2)),
        ("2^-x*y", y * 2 ** (-x)),
        ("(x+1)(x-1)", (x + 1) * (x - 1)),
        ("x**3", x**3),
        ("0.5x", x / 2),
        ("e^x", sympy.exp(x)),
        ("ln(x) + abs(y)", sympy.log(x) + sympy.Abs(y)),
        ("sqrt(x)", sympy.sqrt(x)),
        ("Piecewise((1, x > 1), (-1, x < 1))", sympy.Piecewise((1, x > 1), (-1, x < 1))),
    ],
)
def test_accepts_the_grammar(text, expected):
    assert sympy.simplify(evaluated(parse_expr_safe(text)) - expected) == 0


def test_surface_tree_keeps_what_sympy_would_cancel():
    surface = parse_expr_safe("x/x")
    assert surface != 1  # unevaluated: the denominator is still there
    assert evaluated(surface) == 1


@pytest.mark.parametrize(
    ("text", "needle", "pos"),
    [
        ("9^9^9^9", "exponent 387420489 too large", 3),
        ("x(y)", "not a known function", 1),
        ("1/2x", "after '/' is ambiguous", 3),
        ("x^2y", "after an exponent is ambiguous", 3),
        ("x y", "only accepted after a number", 2),
        ("2 3", "two numbers", 2),
        ("__import__('os')", "unexpected character '_'", 0),
        ("x.real", "unexpected character '.'", 1),
        ("sqrt(x", "expected ')'", 6),
        ("x+", "unexpected end", 2),
        ("1/(2-2)", "division by zero", 1),
        ("x**70", "exponent 70 too large", 1),
        ("lambda", "not allowed", 0),
        ("sqrt", "needs parentheses", 0),
        ("I*x", "needs domain 'complex'", 0),
    ],
)
def test_refuses_with_reason_and_position(text, needle, pos):
    with pytest.raises(ParseError) as err:
        parse_expr_safe(text)
    assert needle in str(err.value)
    assert err.value.pos == pos


def test_bounds_length_depth_and_digits():
    with pytest.raises(ParseError, match="longer than"):
        parse_expr_safe("x+" * (MAX_LENGTH // 2) + "x")
    with pytest.raises(ParseError, match="nesting deeper"):
        parse_expr_safe("(" * 60 + "x" + ")" * 60)
    with pytest.raises(ParseError, match="digits"):
        parse_expr_safe("1" * 60)
    with pytest.raises(ParseError, match="distinct symbols"):
        parse_expr_safe("+".join(f"a{i}" for i in range(12)))


def test_equations_and_relations_report_positions_in_the_whole_string():
    lhs, rhs = parse_equation("sqrt(x+2) = x")
    assert evaluated(lhs) == sympy.sqrt(x + 2) and rhs == x
    with pytest.raises(ParseError) as err:
        parse_equation("x = y +")
    assert err.value.pos == 7
    with pytest.raises(ParseError, match="more than one relation"):
        parse_equation("x = 1 = 2")
    assert parse_relation("x*y > 0")[1] == ">"
    with pytest.raises(ParseError, match="not allowed here"):
        parse_relation("x = 1")


def test_long_flat_chains_do_not_recurse():
    """600 terms in a row must not build a 600-deep tree (sympy would hit the recursion limit)."""
    e = parse_expr_safe("1/(" + "x+" * 600 + "1)")
    assert len(e.args) <= 3
    assert evaluated(e) == 1 / (600 * x + 1)
    assert evaluated(parse_expr_safe("a/b/c*d")) == sympy.Symbol("a") * sympy.Symbol("d") / (
        sympy.Symbol("b") * sympy.Symbol("c"))
    assert evaluated(parse_expr_safe("x - (y + 1) - 2")) == x - y - 3
