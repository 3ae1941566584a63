"""A whitelisted closed-form grammar, parsed with lark and evaluated with mpmath or sympy.

User strings are never handed to eval/sympify: they are parsed into a small tuple AST
whose leaves are numbers and named constants, then evaluated by walking the tree. The same
AST is built by the PSLQ proposer, so candidate formulas round-trip through this grammar.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
from lark import Lark, Token, Tree
from lark.exceptions import LarkError

MAX_EXPR_CHARS = 400
MAX_DEPTH = 40
MAX_INT_DIGITS = 60
MAX_ABS_EXPONENT = 200

GRAMMAR = r"""
?start: sum
?sum: product
    | sum "+" product   -> add
    | sum "-" product   -> sub
?product: unary
    | product "*" unary -> mul
    | product "/" unary -> div
?unary: power
    | "-" unary         -> neg
    | "+" unary
?power: atom
    | atom ("**" | "^") unary -> pow
?atom: NUMBER           -> number
    | NAME "(" sum ("," sum)* ")" -> call
    | NAME              -> name
    | "(" sum ")"
NUMBER: /[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/ | /\.[0-9]+([eE][-+]?[0-9]+)?/
NAME: /[a-zA-Z_][a-zA-Z_0-9]*/
%ignore /[ \t]+/
"""

CONSTANTS = ("pi", "e", "euler", "catalan", "phi", "apery", "khinchin", "glaisher", "lemniscate")
FUNCTIONS = {  # name -> arity; polyroot is variadic (see POLYROOT_ARITY)
    "sqrt": 1, "cbrt": 1, "log": 1, "exp": 1, "sin": 1, "cos": 1, "tan": 1, "atan": 1,
    "asin": 1, "acos": 1, "sinh": 1, "cosh": 1, "tanh": 1, "gamma": 1, "zeta": 1, "root": 2,
    "polylog": 2, "digamma": 1, "besseli": 2, "polyroot": -1,
}
# polyroot(k, c_n, ..., c_0): the k-th real root (1 = smallest) of the integer polynomial
# c_n x^n + ... + c_0, of degree 2 to MAX_POLY_DEGREE.
MAX_POLY_DEGREE = 6
POLYROOT_ARITY = range(4, MAX_POLY_DEGREE + 3)

Node = tuple[Any, ...]


class ClosedFormError(ValueError):
    """The expression is not in the whitelisted grammar or exceeds a size bound."""


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr")


def parse(text: str) -> Node:
    """Parse a closed form into the tuple AST; raise ClosedFormError with a clear reason."""
    if len(text) > MAX_EXPR_CHARS:
        raise ClosedFormError(f"expression longer than {MAX_EXPR_CHARS} characters")
    try:
        tree = _parser().parse(text)
    except LarkError as exc:
        raise ClosedFormError(f"not a closed form in the mathlas grammar: {str(exc).splitlines()[0]}") from exc
    return _convert(tree, 0)


def _convert(t: Tree | Token, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise ClosedFormError(f"expression nested deeper than {MAX_DEPTH}")
    if isinstance(t, Token):
        raise ClosedFormError(f"unexpected token {t!s}")
    kids = t.children
    if t.data == "number":
        s = str(kids[0])
        if len(s.replace(".", "").lstrip("0")) > MAX_INT_DIGITS:
            raise ClosedFormError(f"number literal longer than {MAX_INT_DIGITS} digits")
        return ("num", Fraction(s))
    if t.data == "name":
        name = str(kids[0])
        if name not in CONSTANTS:
            raise ClosedFormError(f"unknown name {name!r}; allowed constants: {', '.join(CONSTANTS)}")
        return ("const", name)
    if t.data == "call":
        fname = str(kids[0])
        if fname not in FUNCTIONS:
            raise ClosedFormError(f"unknown function {fname!r}; allowed: {', '.join(sorted(FUNCTIONS))}")
        args = [_convert(k, depth + 1) for k in kids[1:]]
        if fname == "polyroot":
            _check_polyroot(args)
        elif len(args) != FUNCTIONS[fname]:
            raise ClosedFormError(f"{fname} takes {FUNCTIONS[fname]} argument(s)")
        return ("call", fname, *args)
    if t.data == "neg":
        return ("neg", _convert(kids[0], depth + 1))
    if t.data in ("add", "sub", "mul", "div", "pow"):
        a, b = (_convert(k, depth + 1) for k in kids)
        if t.data == "pow" and b[0] == "num" and abs(b[1]) > MAX_ABS_EXPONENT:
            raise ClosedFormError(f"exponent larger than {MAX_ABS_EXPONENT} in absolute value")
        return (t.data, a, b)
    if len(kids) == 1:  # unary plus / passthrough
        return _convert(kids[0], depth + 1)
    raise ClosedFormError(f"unsupported construct {t.data}")


def _check_polyroot(args: list[Node]) -> None:
    """polyroot takes an index and integer coefficients, all literal, with a non-zero leading one."""
    if len(args) not in POLYROOT_ARITY:
        raise ClosedFormError(f"polyroot takes an index and 3 to {MAX_POLY_DEGREE + 1} integer coefficients")
    ints = [a[1] if a[0] == "num" else -a[1][1] if a[0] == "neg" and a[1][0] == "num" else None for a in args]
    if any(v is None or v.denominator != 1 for v in ints):
        raise ClosedFormError("polyroot's index and coefficients must be integer literals")
    if ints[0] < 1 or ints[1] == 0:
        raise ClosedFormError("polyroot's index starts at 1 and its leading coefficient must not be 0")


def polyroot_args(node: Node) -> tuple[int, list[int]]:
    """(index, coefficients highest degree first) of a parsed polyroot call."""
    ints = [int(a[1]) if a[0] == "num" else -int(a[1][1]) for a in node[2:]]
    return ints[0], ints[1:]


def _mp_polyroot(node: Node) -> Any:
    k, coeffs = polyroot_args(node)
    roots = mpmath.polyroots(coeffs, maxsteps=200, extraprec=4 * mpmath.mp.prec)
    eps = mpmath.mpf(10) ** (-(mpmath.mp.dps // 2))
    real = sorted(mpmath.re(r) for r in roots if abs(mpmath.im(r)) <= eps * max(1, abs(r)))
    if k > len(real):
        raise ValueError(f"the polynomial has {len(real)} real root(s), not {k}")
    return real[k - 1]


def _sp_polyroot(node: Node, sp: Any) -> Any:
    k, coeffs = polyroot_args(node)
    real = sp.Poly(coeffs, sp.Symbol("x")).real_roots()
    if k > len(real):
        raise ClosedFormError(f"the polynomial has {len(real)} real root(s), not {k}")
    return real[k - 1]


def _mp_lemniscate() -> Any:
    """The lemniscate constant varpi = Gamma(1/4)^2 / (2 sqrt(2 pi))."""
    return mpmath.gamma(mpmath.mpf(1) / 4) ** 2 / (2 * mpmath.sqrt(2 * mpmath.mp.pi))


_MP_CONST = {
    "pi": lambda: mpmath.mp.pi, "e": lambda: mpmath.mp.e, "euler": lambda: mpmath.mp.euler,
    "catalan": lambda: mpmath.mp.catalan, "phi": lambda: mpmath.mp.phi,
    "apery": lambda: mpmath.zeta(3), "khinchin": lambda: mpmath.mp.khinchin,
    "glaisher": lambda: mpmath.mp.glaisher, "lemniscate": _mp_lemniscate,
}


def eval_mpmath(node: Node, dps: int) -> mpmath.mpf:
    """Evaluate the AST with mpmath at ``dps`` decimal digits (raises ClosedFormError on domain errors)."""
    with mpmath.workdps(dps):
        try:
            return +_mp(node)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
            raise ClosedFormError(f"cannot evaluate: {exc}") from exc


def _mp(n: Node) -> Any:
    op = n[0]
    if op == "num":
        return mpmath.mpf(n[1].numerator) / n[1].denominator
    if op == "const":
        return _MP_CONST[n[1]]()
    if op == "neg":
        return -_mp(n[1])
    if op == "call":
        if n[1] == "polyroot":
            return _mp_polyroot(n)
        args = [_mp(a) for a in n[2:]]
        f = {"sqrt": mpmath.sqrt, "cbrt": mpmath.cbrt, "log": mpmath.log, "exp": mpmath.exp,
             "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan, "atan": mpmath.atan,
             "asin": mpmath.asin, "acos": mpmath.acos, "sinh": mpmath.sinh, "cosh": mpmath.cosh,
             "tanh": mpmath.tanh, "gamma": mpmath.gamma, "zeta": mpmath.zeta, "root": mpmath.root,
             "polylog": mpmath.polylog, "digamma": mpmath.digamma, "besseli": mpmath.besseli}[n[1]]
        if n[1] == "root":
            return mpmath.root(args[0], int(args[1]))
        return f(*args)
    a, b = _mp(n[1]), _mp(n[2])
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        if b == 0:
            raise ZeroDivisionError("division by zero")
        return a / b
    if op == "pow":
        return mpmath.power(a, b)
    raise ClosedFormError(f"unknown node {op}")


def eval_sympy(node: Node, dps: int) -> mpmath.mpf:
    """Evaluate the AST with sympy's evalf (an independent library), returned as an mpmath number."""
    import sympy

    expr = _sp(node, sympy)
    val = sympy.N(expr, dps)
    if not val.is_real:
        raise ClosedFormError("expression is not real")
    with mpmath.workdps(dps):
        return mpmath.mpf(str(val))


def _float_const(sp: Any, name: str) -> Any:
    """sympy has no Khinchin/Glaisher symbol: use a 120-digit mpmath value (documented limit)."""
    with mpmath.workdps(120):
        return sp.Float(mpmath.nstr(getattr(mpmath.mp, name), 120), 120)


def _sp(n: Node, sp: Any) -> Any:
    op = n[0]
    if op == "num":
        return sp.Rational(n[1].numerator, n[1].denominator)
    if op == "const":
        return {"pi": sp.pi, "e": sp.E, "euler": sp.EulerGamma, "catalan": sp.Catalan,
                "phi": sp.GoldenRatio, "apery": sp.zeta(3), "khinchin": _float_const(sp, "khinchin"),
                "glaisher": _float_const(sp, "glaisher"),
                "lemniscate": sp.gamma(sp.Rational(1, 4)) ** 2 / (2 * sp.sqrt(2 * sp.pi))}[n[1]]
    if op == "neg":
        return -_sp(n[1], sp)
    if op == "call":
        if n[1] == "polyroot":
            return _sp_polyroot(n, sp)
        args = [_sp(a, sp) for a in n[2:]]
        if n[1] == "root":
            return sp.root(args[0], args[1])
        if n[1] == "cbrt":
            return sp.cbrt(args[0])
        return getattr(sp, n[1])(*args)
    a, b = _sp(n[1], sp), _sp(n[2], sp)
    return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
            "div": lambda: a / b, "pow": lambda: a**b}[op]()


_PREC = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}


def to_text(n: Node) -> str:
    """Render the AST back into the grammar (so every displayed formula parses again)."""
    op = n[0]
    if op == "num":
        f = n[1]
        if f.denominator == 1:
            return str(f.numerator)
        return f"{f.numerator}/{f.denominator}"
    if op == "const":
        return n[1]
    if op == "call":
        return f"{n[1]}({', '.join(to_text(a) for a in n[2:])})"
    if op == "neg":
        inner = to_text(n[1])
        return f"-({inner})" if n[1][0] in ("add", "sub") else f"-{inner}"
    sym = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "**"}[op]
    p = _PREC[op]
    left = _wrap(n[1], p, right=False, parent=op)
    right = _wrap(n[2], p, right=True, parent=op)
    return f"{left}{sym}{right}"


def _wrap(child: Node, p: int, right: bool, parent: str) -> str:
    s = to_text(child)
    cp = _PREC.get(child[0], 5)
    if child[0] == "num" and child[1].denominator != 1:
        cp = 2
    if child[0] == "num" and child[1] < 0:
        cp = 3
    if cp < p or (right and cp == p and parent in ("sub", "div", "pow")) or (parent == "pow" and cp <= p):
        return f"({s})"
    return s
