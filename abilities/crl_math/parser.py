"""A whitelisted Pratt parser that builds sympy objects by construction (never eval/sympify).

Why our own parser: sympy's string parsers evaluate Python, and sympy's automatic evaluation
silently cancels ``x/x`` to ``1`` (dropping ``x != 0``). This parser builds every node with
``evaluate=False``, so the surface tree still carries every denominator, radical and log of what
the user wrote; the planner evaluates it later as an explicit, obligation-tracked step.

Grammar (precedence low to high): ``+ -`` < ``* /`` and implicit product < unary ``-`` < ``^ **``
(right-associative). Implicit multiplication is accepted only where it is unambiguous: after a
number or a closing parenthesis, before a name or ``(`` (``2x``, ``3(x+1)``, ``(x+1)(x-1)``).
``x(y)``, ``x y``, ``1/2x`` and ``x^2y`` are rejected with the position and a suggested rewrite.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from sympy import Integer, Rational

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_NODES = 1500
MAX_INT_DIGITS = 40
MAX_SYMBOLIC_EXPONENT = 64
MAX_RESULT_DIGITS = 400
MAX_SYMBOLS = 8

FUNCTIONS: dict[str, object] = {
    "sqrt": lambda a: sympy.Pow(a, Rational(1, 2), evaluate=False),
    "abs": lambda a: sympy.Abs(a, evaluate=False),
    "Abs": lambda a: sympy.Abs(a, evaluate=False),
    "log": lambda a: sympy.log(a, evaluate=False),
    "ln": lambda a: sympy.log(a, evaluate=False),
    "exp": lambda a: sympy.exp(a, evaluate=False),
    "sin": lambda a: sympy.sin(a, evaluate=False),
    "cos": lambda a: sympy.cos(a, evaluate=False),
    "tan": lambda a: sympy.tan(a, evaluate=False),
    "asin": lambda a: sympy.asin(a, evaluate=False),
    "acos": lambda a: sympy.acos(a, evaluate=False),
    "atan": lambda a: sympy.atan(a, evaluate=False),
    "sign": lambda a: sympy.sign(a, evaluate=False),
}
CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "e": sympy.E}
RESERVED = set(FUNCTIONS) | set(CONSTANTS) | {"I", "oo", "nan", "zoo", "Piecewise", "lambda"}
_RELATIONS = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "!=": sympy.Ne, "==": sympy.Eq}

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*|<=|>=|!=|==|[-+*/^(),<>=]))"
)


class ParseError(ValueError):
    """A user string that is not in the grammar; ``pos`` is the 0-based character offset."""

    def __init__(self, message: str, pos: int, text: str = "") -> None:
        self.pos = pos
        self.reason = message
        pointer = f" at position {pos}"
        if text:
            snippet = text[max(0, pos - 10) : pos + 10]
            pointer += f" (near {snippet!r})"
        super().__init__(f"{message}{pointer}")


@dataclass
class Token:
    kind: str  # num | name | op | end
    text: str
    pos: int


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; any character outside the grammar is an error with its position."""
    if len(text) > MAX_LENGTH:
        raise ParseError(f"input longer than {MAX_LENGTH} characters", MAX_LENGTH)
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = pos + (len(text[pos:]) - len(text[pos:].lstrip()))
            raise ParseError(f"unexpected character {text[bad]!r}", bad, text)
        kind = m.lastgroup or "op"
        start = m.start(kind)
        tokens.append(Token(kind, m.group(kind), start))
        pos = m.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


def _number(text: str, pos: int, src: str) -> sympy.Expr:
    digits = text.replace(".", "")
    if len(digits.lstrip("0")) > MAX_INT_DIGITS:
        raise ParseError(f"number with more than {MAX_INT_DIGITS} digits", pos, src)
    if "." in text:
        f = Fraction(text)
        return Rational(f.numerator, f.denominator)
    return Integer(int(text))


@dataclass
class _State:
    text: str
    tokens: list[Token]
    i: int = 0
    nodes: int = 0
    symbols: dict[str, sympy.Symbol] = field(default_factory=dict)
    complex_ok: bool = False


class Parser:
    """Pratt parser over the token list. Binding powers: + - 10, * / implicit 20, unary 25, ^ 30."""

    def __init__(self, text: str, *, allow_relations: bool = False, complex_ok: bool = False) -> None:
        self.s = _State(text, tokenize(text), complex_ok=complex_ok)
        self.allow_relations = allow_relations
        self._chains: set[int] = set()  # ids of Add/Mul nodes this parser built from a flat chain
        self._keep: list[sympy.Basic] = []  # keeps those nodes alive so their ids stay unique

    # -- token helpers -------------------------------------------------------------------
    def peek(self) -> Token:
        return self.s.tokens[self.s.i]

    def next(self) -> Token:
        tok = self.s.tokens[self.s.i]
        self.s.i += 1
        return tok

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text:
            found = repr(tok.text) if tok.kind != "end" else "end of input"
            raise ParseError(f"expected {text!r}, found {found}", tok.pos, self.s.text)
        return tok

    def _count(self, pos: int) -> None:
        self.s.nodes += 1
        if self.s.nodes > MAX_NODES:
            raise ParseError(f"expression has more than {MAX_NODES} nodes", pos, self.s.text)

    # -- grammar -------------------------------------------------------------------------
    def parse_expression(self, rbp: int = 0, depth: int = 0) -> sympy.Expr:
        if depth > MAX_DEPTH:
            raise ParseError(f"nesting deeper than {MAX_DEPTH}", self.peek().pos, self.s.text)
        tok = self.next()
        left, last_kind = self.nud(tok, depth)
        last_op = "atom"
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text in ("+", "-"):
                bp, op = 10, tok.text
            elif tok.kind == "op" and tok.text in ("*", "/"):
                bp, op = 20, tok.text
            elif tok.kind == "op" and tok.text in ("^", "**"):
                bp, op = 30, "^"
            elif tok.kind in ("num", "name") or tok.text == "(":
                bp, op = 20, "implicit"
            else:
                break
            if bp <= rbp:
                break
            if op == "implicit":
                self._check_implicit(tok, last_kind, last_op)
                right = self.parse_expression(20, depth + 1)
                left = self._binary("*", left, right, tok.pos)
                # (x+1)(x-2)(x-5): a product of parenthesised factors stays unambiguous
                last_kind = "rparen" if self.s.tokens[self.s.i - 1].text == ")" else "implicit"
            else:
                self.next()
                if op == "^":
                    right = self.parse_expression(29, depth + 1)
                    left = self._power(left, right, tok.pos)
                else:
                    right = self.parse_expression(bp, depth + 1)
                    left = self._binary(op, left, right, tok.pos)
                last_kind = self.s.tokens[self.s.i - 1].kind
                if self.s.tokens[self.s.i - 1].text == ")":
                    last_kind = "rparen"
            last_op = op
            self._count(tok.pos)
        return left

    def _check_implicit(self, tok: Token, last_kind: str, last_op: str) -> None:
        src = self.s.text
        if last_op == "/":
            raise ParseError(
                "implicit multiplication after '/' is ambiguous: write 1/(2*x) or (1/2)*x", tok.pos, src
            )
        if last_op == "^":
            raise ParseError(
                "implicit multiplication after an exponent is ambiguous: write x^2*y or x^(2*y)",
                tok.pos,
                src,
            )
        if last_kind == "num" and tok.kind == "num":
            raise ParseError("two numbers in a row: missing operator", tok.pos, src)
        if last_kind == "rparen" and tok.kind == "num":
            raise ParseError("a number after ')' is ambiguous: write an explicit '*'", tok.pos, src)
        if last_kind not in ("num", "rparen"):
            raise ParseError(
                "implicit multiplication is only accepted after a number or ')': write an explicit '*'",
                tok.pos,
                src,
            )

    def nud(self, tok: Token, depth: int) -> tuple[sympy.Expr, str]:
        src = self.s.text
        self._count(tok.pos)
        if tok.kind == "num":
            return _number(tok.text, tok.pos, src), "num"
        if tok.kind == "name":
            return self._name(tok, depth), ("rparen" if self.s.tokens[self.s.i - 1].text == ")" else "name")
        if tok.text == "(":
            inner = self.parse_expression(0, depth + 1)
            self.expect(")")
            return inner, "rparen"
        if tok.text == "-":
            operand = self.parse_expression(25, depth + 1)
            if operand.is_Number:
                return -operand, "num"
            return sympy.Mul(Integer(-1), operand, evaluate=False), "neg"
        if tok.text == "+":
            return self.parse_expression(25, depth + 1), "pos"
        if tok.kind == "end":
            raise ParseError("unexpected end of input", tok.pos, src)
        raise ParseError(f"unexpected {tok.text!r}", tok.pos, src)

    def _name(self, tok: Token, depth: int) -> sympy.Expr:
        src = self.s.text
        name = tok.text
        if name in FUNCTIONS:
            if self.peek().text != "(":
                raise ParseError(f"function {name!r} needs parentheses: {name}(...)", tok.pos, src)
            self.next()
            arg = self.parse_expression(0, depth + 1)
            if self.peek().text == ",":
                raise ParseError(f"{name} takes exactly one argument", self.peek().pos, src)
            self.expect(")")
            return FUNCTIONS[name](arg)  # type: ignore[operator]
        if name == "Piecewise":
            return self._piecewise(tok, depth)
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name == "I":
            if not self.s.complex_ok:
                raise ParseError("the imaginary unit I needs domain 'complex'", tok.pos, src)
            return sympy.I
        if name in RESERVED:
            raise ParseError(f"{name!r} is not allowed", tok.pos, src)
        if self.peek().text == "(":
            raise ParseError(
                f"{name!r} is not a known function; for a product write {name}*(...)", self.peek().pos, src
            )
        if len(name) > 24:
            raise ParseError("symbol name longer than 24 characters", tok.pos, src)
        sym = self.s.symbols.get(name)
        if sym is None:
            if len(self.s.symbols) >= MAX_SYMBOLS:
                raise ParseError(f"more than {MAX_SYMBOLS} distinct symbols", tok.pos, src)
            sym = sympy.Symbol(name)
            self.s.symbols[name] = sym
        return sym

    def _piecewise(self, tok: Token, depth: int) -> sympy.Expr:
        """``Piecewise((expr, relation), ...)`` as printed by our outputs, so clients can read them back."""
        src = self.s.text
        self.expect("(")
        pairs = []
        while True:
            self.expect("(")
            val = self.parse_expression(0, depth + 1)
            self.expect(",")
            lhs = self.parse_expression(0, depth + 1)
            op = self.next()
            if op.text not in _RELATIONS:
                raise ParseError("expected a relation (<, <=, >, >=, !=) in a Piecewise branch", op.pos, src)
            rhs = self.parse_expression(0, depth + 1)
            self.expect(")")
            pairs.append((val, _RELATIONS[op.text](lhs, rhs)))
            if self.peek().text == ",":
                self.next()
                continue
            self.expect(")")
            break
        if len(pairs) > 8:
            raise ParseError("Piecewise with more than 8 branches", tok.pos, src)
        return sympy.Piecewise(*pairs, evaluate=False)

    def _binary(self, op: str, left: sympy.Expr, right: sympy.Expr, pos: int) -> sympy.Expr:
        # a chain a + b + c ... is kept flat (one Add node), so the tree depth stays bounded by the
        # nesting depth and sympy never recurses through hundreds of nested binary nodes
        if op in ("+", "-"):
            if op == "-":
                right = -right if right.is_Number else sympy.Mul(Integer(-1), right, evaluate=False)
            terms = [*left.args] if (left.is_Add and id(left) in self._chains) else [left]
            out = sympy.Add._from_args((*terms, right))
            self._chains.add(id(out))
            self._keep.append(out)
            return out
        if op == "/":
            if (right.is_Number and right == 0) or (
                not right.free_symbols and not right.is_Number and evaluated(right) == 0
            ):
                raise ParseError("division by zero", pos, self.s.text)
            if left.is_Number and right.is_Number:
                return left / right
            right = sympy.Pow(right, Integer(-1), evaluate=False)
        factors = [*left.args] if (left.is_Mul and id(left) in self._chains) else [left]
        out = sympy.Mul._from_args((*factors, right))
        self._chains.add(id(out))
        self._keep.append(out)
        return out

    def _power(self, base: sympy.Expr, expo: sympy.Expr, pos: int) -> sympy.Expr:
        src = self.s.text
        if not expo.free_symbols and not expo.is_Number and not expo.has(sympy.pi, sympy.E):
            value = evaluated(expo)
            if value.is_Number:
                expo = value
        if expo.is_Number:
            if expo.is_Float or not expo.is_Rational:
                raise ParseError("exponent must be exact", pos, src)
            if abs(expo.p) > MAX_SYMBOLIC_EXPONENT or expo.q > MAX_SYMBOLIC_EXPONENT:
                raise ParseError(
                    f"exponent {expo} too large (|numerator| and denominator at most {MAX_SYMBOLIC_EXPONENT})",
                    pos,
                    src,
                )
            if base.is_Number:
                if base.is_zero and expo.is_negative:
                    raise ParseError("division by zero (0 to a negative power)", pos, src)
                if base.is_Integer and expo.is_Integer and expo > 0:
                    digits = expo * math.log10(max(abs(int(base)), 2))
                    if digits > MAX_RESULT_DIGITS:
                        raise ParseError("power too large to evaluate", pos, src)
        else:
            nums = [a for a in sympy.preorder_traversal(expo) if a.is_Number]
            if any(abs(n) > MAX_SYMBOLIC_EXPONENT for n in nums):
                raise ParseError(f"exponent too large (numbers in exponents at most {MAX_SYMBOLIC_EXPONENT})", pos, src)
        return sympy.Pow(base, expo, evaluate=False)

    def parse_all(self) -> sympy.Expr:
        expr = self.parse_expression(0)
        tok = self.peek()
        if tok.kind != "end":
            raise ParseError(f"unexpected {tok.text!r}", tok.pos, self.s.text)
        return expr


def parse_expr_safe(text: str, *, complex_ok: bool = False) -> sympy.Expr:
    """Parse one expression into an unevaluated sympy tree (the F representation's surface)."""
    if not text.strip():
        raise ParseError("empty expression", 0)
    return Parser(text, complex_ok=complex_ok).parse_all()


_REL_SPLIT = re.compile(r"(<=|>=|!=|==|<|>|=)")


def split_relation(text: str, allowed: tuple[str, ...]) -> tuple[str, str, str, int]:
    """Split ``lhs OP rhs`` at its single top-level relation operator; returns (lhs, op, rhs, op_pos)."""
    if len(text) > MAX_LENGTH:
        raise ParseError(f"input longer than {MAX_LENGTH} characters", MAX_LENGTH)
    found = [(m.start(), m.group(0)) for m in _REL_SPLIT.finditer(text)]
    if not found:
        raise ParseError(f"expected a relation ({', '.join(allowed)})", len(text), text)
    if len(found) > 1:
        raise ParseError("more than one relation operator", found[1][0], text)
    pos, op = found[0]
    if op not in allowed:
        raise ParseError(f"operator {op!r} not allowed here (use {', '.join(allowed)})", pos, text)
    return text[:pos], op, text[pos + len(op) :], pos


def parse_equation(text: str, *, complex_ok: bool = False) -> tuple[sympy.Expr, sympy.Expr]:
    """Parse ``lhs = rhs`` (one '=' only); positions in errors refer to the whole string."""
    lhs_s, _op, rhs_s, pos = split_relation(text, ("=",))
    return _parse_side(lhs_s, 0, text, complex_ok), _parse_side(rhs_s, pos + 1, text, complex_ok)


def _parse_side(part: str, offset: int, whole: str, complex_ok: bool) -> sympy.Expr:
    if not part.strip():
        raise ParseError("missing side of the relation", offset, whole)
    try:
        return parse_expr_safe(part, complex_ok=complex_ok)
    except ParseError as exc:
        raise ParseError(exc.reason, exc.pos + offset, whole) from None


SOLVE_OPS = ("=", "<", "<=", ">", ">=")


def parse_solve_relation(text: str, *, complex_ok: bool = False) -> tuple[sympy.Expr, str, sympy.Expr]:
    """Parse what ``solve`` accepts: ``lhs = rhs`` or an inequality ``lhs < rhs`` (<, <=, >, >=)."""
    lhs_s, op, rhs_s, pos = split_relation(text, SOLVE_OPS)
    return _parse_side(lhs_s, 0, text, complex_ok), op, _parse_side(rhs_s, pos + len(op), text, complex_ok)


REL_OPS = ("!=", "<=", ">=", "<", ">", "==")


def parse_relation(text: str, *, complex_ok: bool = False) -> tuple[sympy.Expr, str, sympy.Expr]:
    """Parse a condition/assumption such as ``x != 1`` or ``x*y > 0`` into (lhs, op, rhs)."""
    lhs_s, op, rhs_s, pos = split_relation(text, REL_OPS)
    lhs = _parse_side(lhs_s, 0, text, complex_ok)
    rhs = _parse_side(rhs_s, pos + len(op), text, complex_ok)
    return lhs, op, rhs


def evaluated(expr: sympy.Expr) -> sympy.Expr:
    """Rebuild an unevaluated tree bottom-up with sympy's normal evaluation (the NORMALIZE step)."""
    if not expr.args or isinstance(expr, sympy.Piecewise):
        if isinstance(expr, sympy.Piecewise):
            return sympy.Piecewise(*[(evaluated(e), c) for e, c in expr.args])
        return expr
    return expr.func(*[evaluated(a) for a in expr.args])


def realify(expr: sympy.Basic) -> sympy.Basic:
    """In the real domain every subexpression is real: drop the ``re``/``im`` sympy introduces for
    plain symbols (``Abs(exp(x))`` evaluates to ``exp(re(x))``)."""
    if not expr.has(sympy.re, sympy.im, sympy.conjugate):
        return expr
    return expr.replace(sympy.re, lambda a: a).replace(sympy.im, lambda a: sympy.Integer(0)).replace(
        sympy.conjugate, lambda a: a
    )
