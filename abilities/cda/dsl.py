"""The constraint DSL (spec §3): a lark LALR grammar, a typed AST and readable parse errors.

Forms: ``holds(pred(args))``, ``not(...)``, ``exists path(A ->edge-> B within N hops)``,
``before(X, Y)``, ``within(X, 14d of Y)``, ``xor(hyp:A, hyp:B, ...)``, ``value(metric:M) <= n``
(or ``<= value(metric:N)``), ``use(provider:P) only_if risk <= medium`` and
``prefer(...) weight w``. References are ``namespace:id`` with the namespaces of Ken
(``entity``, ``event``, ``metric``, ``hyp``) plus ``provider`` (only inside ``use``).
Parse errors carry line, column and what was expected; nothing is ever evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import (
    Lark,
    Token,
    Transformer,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

GRAMMAR = r"""
start: clause

?clause: holds | negation | exists_path | before | within | xor | value_cmp | use_policy | prefer

holds: "holds" "(" atom ")"
negation: "not" "(" (clause | atom) ")"
exists_path: "exists" "path" "(" REF "->" NAME "->" REF "within" INT HOPS ")"
before: "before" "(" REF "," REF ")"
within: "within" "(" REF "," DURATION "of" REF ")"
xor: "xor" "(" REF ("," REF)+ ")"
value_cmp: "value" "(" REF ")" CMP (NUMBER | valueref)
valueref: "value" "(" REF ")"
use_policy: "use" "(" REF ")" "only_if" "risk" CMP RISK
prefer: "prefer" "(" (clause | atom) ")" ["weight" NUMBER]

atom: NAME "(" [arg ("," arg)*] ")"
?arg: REF -> ref_arg
    | NUMBER -> num_arg
    | ESCAPED_STRING -> str_arg
    | NAME -> name_arg

HOPS.2: "hops" | "hop"
RISK.2: "low" | "medium" | "high" | "hard"
DURATION.3: /\d+(\.\d+)?(s|m|h|d|w)\b/
REF.3: /[A-Za-z_][A-Za-z0-9_]*:[A-Za-z0-9_](?:[A-Za-z0-9_.\/@]|-(?!>))*/
CMP: "<=" | ">=" | "==" | "!=" | "<" | ">"
NAME: /[A-Za-z_][A-Za-z0-9_]*/
INT: /\d+/
NUMBER: /[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/

%import common.ESCAPED_STRING
%import common.WS
%ignore WS
"""

REF_NAMESPACES = ("entity", "event", "metric", "hyp", "provider")
RISK_LEVELS = {"low": 0, "medium": 1, "high": 2, "hard": 3}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MAX_XOR = 32
MAX_HOPS = 6
MAX_NESTING = 24

_PARSER = Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True)
_PRETTY = {
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "REF": "a reference like entity:name",
    "NAME": "a name", "NUMBER": "a number", "INT": "an integer", "CMP": "a comparison (<=, <, ==, ...)",
    "DURATION": "a duration like 14d", "RISK": "a risk level (low|medium|high|hard)",
    "HOPS": "'hops'", "ESCAPED_STRING": "a quoted string", "__ANON_0": "'->'", "$END": "end of clause",
}


class DSLError(ValueError):
    """A clause that does not parse or does not make sense, with its position."""

    def __init__(self, message: str, line: int = 1, column: int = 1, expected: list[str] | None = None,
                 clause: str = "") -> None:
        self.line, self.column, self.expected, self.clause = line, column, expected or [], clause
        self.detail = message
        where = f"line {line}, column {column}"
        exp = f"; expected {', '.join(self.expected)}" if self.expected else ""
        super().__init__(f"{where}: {message}{exp}")


# ---------------------------------------------------------------------------- AST
@dataclass(frozen=True)
class Ref:
    ns: str
    name: str

    @property
    def id(self) -> str:
        return f"{self.ns}:{self.name}"

    def __str__(self) -> str:
        return self.id


Arg = Ref | float | int | str


@dataclass(frozen=True)
class Atom:
    pred: str
    args: tuple[Arg, ...]

    @property
    def key(self) -> str:
        return f"{self.pred}({','.join(_fmt_arg(a) for a in self.args)})"

    def __str__(self) -> str:
        return self.key


@dataclass(frozen=True)
class Holds:
    atom: Atom

    def __str__(self) -> str:
        return f"holds({self.atom})"


@dataclass(frozen=True)
class Not:
    inner: Any

    def __str__(self) -> str:
        return f"not({self.inner})"


@dataclass(frozen=True)
class ExistsPath:
    src: Ref
    edge: str
    dst: Ref
    hops: int

    def __str__(self) -> str:
        return f"exists path({self.src} ->{self.edge}-> {self.dst} within {self.hops} hops)"


@dataclass(frozen=True)
class Before:
    first: Ref
    second: Ref

    def __str__(self) -> str:
        return f"before({self.first}, {self.second})"


@dataclass(frozen=True)
class Within:
    first: Ref
    seconds: int
    second: Ref
    dur: str = ""

    def __str__(self) -> str:
        return f"within({self.first}, {self.dur or str(self.seconds) + 's'} of {self.second})"


@dataclass(frozen=True)
class Xor:
    refs: tuple[Ref, ...]

    def __str__(self) -> str:
        return f"xor({', '.join(map(str, self.refs))})"


@dataclass(frozen=True)
class ValueCmp:
    ref: Ref
    op: str
    rhs: float | Ref

    def __str__(self) -> str:
        rhs = f"value({self.rhs})" if isinstance(self.rhs, Ref) else _fmt_arg(self.rhs)
        return f"value({self.ref}) {self.op} {rhs}"


@dataclass(frozen=True)
class UsePolicy:
    provider: Ref
    op: str
    risk: str

    def __str__(self) -> str:
        return f"use({self.provider}) only_if risk {self.op} {self.risk}"


@dataclass(frozen=True)
class Prefer:
    inner: Any
    weight: float | None

    def __str__(self) -> str:
        w = "" if self.weight is None else f" weight {_fmt_arg(self.weight)}"
        return f"prefer({self.inner}){w}"


Clause = Holds | Not | ExistsPath | Before | Within | Xor | ValueCmp | UsePolicy | Prefer


def _fmt_arg(a: Arg) -> str:
    if isinstance(a, Ref):
        return a.id
    if isinstance(a, bool):
        return str(a).lower()
    if isinstance(a, float):
        return repr(int(a)) if a.is_integer() and abs(a) < 1e15 else repr(a)
    if isinstance(a, int):
        return str(a)
    return '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _num(tok: Token) -> float:
    v = float(tok)
    if v != v or v in (float("inf"), float("-inf")) or abs(v) > 1e15:
        raise DSLError(f"number {tok!s} out of range (|x| <= 1e15)", tok.line, tok.column)
    return v


def _ref(tok: Token, allowed: tuple[str, ...] = REF_NAMESPACES) -> Ref:
    ns, _, name = str(tok).partition(":")
    if ns not in allowed:
        raise DSLError(f"unknown node type {ns!r} in {tok!s}", tok.line, tok.column,
                       [f"one of {', '.join(x + ':' for x in allowed)}"])
    return Ref(ns, name)


_NODE_NS = ("entity", "event", "metric", "hyp")


class _Build(Transformer):
    def start(self, c):
        return c[0]

    def atom(self, c):
        name, *args = c
        args = tuple(a for a in args if a is not None)
        if len(args) > 8:
            raise DSLError("a predicate takes at most 8 arguments", name.line, name.column)
        return Atom(str(name), args)

    def ref_arg(self, c):
        return _ref(c[0])

    def num_arg(self, c):
        return _num(c[0])

    def str_arg(self, c):
        s = str(c[0])[1:-1]
        return s.encode("utf-8").decode("unicode_escape") if "\\" in s else s

    def name_arg(self, c):
        return str(c[0])

    def holds(self, c):
        return Holds(c[0])

    def negation(self, c):
        return Not(c[0])

    def exists_path(self, c):
        src, edge, dst, n, _hops = c
        hops = int(n)
        if not 1 <= hops <= MAX_HOPS:
            raise DSLError(f"hops must be between 1 and {MAX_HOPS}", n.line, n.column)
        return ExistsPath(_ref(src, _NODE_NS), str(edge), _ref(dst, _NODE_NS), hops)

    def before(self, c):
        return Before(_ref(c[0], _NODE_NS), _ref(c[1], _NODE_NS))

    def within(self, c):
        a, dur, b = c
        text = str(dur)
        seconds = float(text[:-1]) * _UNITS[text[-1]]
        if seconds > 10 * 365 * 86400:
            raise DSLError("duration longer than ten years", dur.line, dur.column)
        return Within(_ref(a, _NODE_NS), int(round(seconds)), _ref(b, _NODE_NS), text)

    def xor(self, c):
        if len(c) > MAX_XOR:
            raise DSLError(f"xor takes at most {MAX_XOR} references", c[0].line, c[0].column)
        return Xor(tuple(_ref(t, _NODE_NS) for t in c))

    def valueref(self, c):
        return _ref(c[0], ("metric", "entity", "event"))

    def value_cmp(self, c):
        ref, op, rhs = c
        rhs_v = rhs if isinstance(rhs, Ref) else _num(rhs)
        return ValueCmp(_ref(ref, ("metric", "entity", "event")), str(op), rhs_v)

    def use_policy(self, c):
        ref, op, risk = c
        return UsePolicy(_ref(ref, ("provider",)), str(op), str(risk))

    def prefer(self, c):
        inner, w = c
        weight = None if w is None else _num(w)
        if weight is not None and not 0 <= weight <= 100:
            raise DSLError("weight must be between 0 and 100", w.line, w.column)
        if isinstance(inner, Prefer):
            raise DSLError("prefer cannot be nested", 1, 1)
        return Prefer(inner, weight)


def _expected(names: set[str] | frozenset[str] | None) -> list[str]:
    out = []
    for n in sorted(names or ()):
        if n in _PRETTY:
            out.append(_PRETTY[n])
        else:
            try:
                pat = _PARSER.get_terminal(n).pattern
                out.append(repr(pat.value) if pat.type == "str" else n.lower())
            except KeyError:
                out.append(n.lower())
    return sorted(set(out))


def parse_clause(text: str) -> Clause:
    """Parse one clause into its AST or raise ``DSLError`` with line, column and expectation."""
    if not text.strip():
        raise DSLError("empty clause", 1, 1, clause=text)
    depth, line, col = 0, 1, 0
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_NESTING:
            raise DSLError(f"clause nested deeper than {MAX_NESTING} parentheses", line, col, clause=text)
    try:
        tree = _PARSER.parse(text)
        return _Build().transform(tree)
    except DSLError as exc:
        exc.clause = text
        raise
    except UnexpectedEOF as exc:
        lines = text.splitlines() or [""]
        raise DSLError("unexpected end of clause", len(lines), len(lines[-1]) + 1,
                       _expected(exc.expected), text) from None
    except UnexpectedToken as exc:
        got = "end of clause" if exc.token.type == "$END" else repr(str(exc.token))
        raise DSLError(f"unexpected {got}", exc.line if exc.line > 0 else 1,
                       exc.column if exc.column > 0 else len(text) + 1,
                       _expected(exc.accepts or exc.expected), text) from None
    except UnexpectedCharacters as exc:
        raise DSLError(f"unexpected character {text[exc.pos_in_stream]!r}", exc.line, exc.column,
                       _expected(exc.allowed), text) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark errors
        raise DSLError(str(exc).splitlines()[0], getattr(exc, "line", 1), getattr(exc, "column", 1),
                       clause=text) from None
    except Exception as exc:  # a transformer raised DSLError wrapped by lark
        inner = getattr(exc, "orig_exc", None)
        if isinstance(inner, DSLError):
            inner.clause = text
            raise inner from None
        raise


def refs_of(node: Any) -> list[Ref]:
    """Every reference mentioned by a clause (in order, without duplicates)."""
    found: list[Ref] = []

    def walk(x: Any) -> None:
        if isinstance(x, Ref):
            if x not in found:
                found.append(x)
        elif isinstance(x, Atom):
            for a in x.args:
                walk(a)
        elif isinstance(x, Holds):
            walk(x.atom)
        elif isinstance(x, Not | Prefer):
            walk(x.inner)
        elif isinstance(x, ExistsPath):
            walk(x.src)
            walk(x.dst)
        elif isinstance(x, Before | Within):
            walk(x.first)
            walk(x.second)
        elif isinstance(x, Xor):
            for r in x.refs:
                walk(r)
        elif isinstance(x, ValueCmp):
            walk(x.ref)
            walk(x.rhs)
        elif isinstance(x, UsePolicy):
            walk(x.provider)

    walk(node)
    return found


def atoms_of(clause: Any) -> list[Atom]:
    """The atoms a clause asserts or denies (inside not/prefer/holds), in order."""
    found: list[Atom] = []

    def walk(x: Any) -> None:
        if isinstance(x, Atom):
            found.append(x)
        elif isinstance(x, Holds):
            found.append(x.atom)
        elif isinstance(x, Not | Prefer):
            walk(x.inner)

    walk(clause)
    return found
