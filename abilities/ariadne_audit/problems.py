"""The controlled language of the builtin reference agents: queries and reasoning steps about
quantities (arithmetic chains, unit conversions), syllogisms and comparisons.

A ``Problem`` is parsed from a query string. ``Problem.derive(steps)`` is what a faithful
agent does with a (possibly intervened) trace: it asserts each step's premises, checks that
each step's conclusion follows from what it knows, fills in the query's premises the trace
does not mention, and answers from the result. A step whose conclusion does not follow, or
whose premise is denied, leaves the answer undetermined. Nothing here evaluates user text:
it is matched against fixed patterns and anything else is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from abilities.ariadne_audit.interventions import split_sentences, structure
from abilities.ariadne_audit.text import format_number, parse_number

NUM = r"-?\d+(?:\.\d+)?(?:/\d+)?"
_WRAP = re.compile(r"^it is not the case that\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Derivation:
    """The outcome of deriving from a trace: a value (or None) and why it is undetermined."""

    value: object | None
    reason: str = ""


def _clauses(steps: list[str]) -> list[tuple[str, str, int]]:
    """(clause, role, step index) in reading order; role is 'p' (asserted) or 'c' (claimed to follow)."""
    out = []
    for i, thought in enumerate(steps):
        for sentence in split_sentences(thought):
            body = sentence.rstrip(".!? ")
            st = structure(body)
            if st.kind == "plain":
                out.append((body, "p", i))
            else:
                out.append((st.premise, "p", i))
                out.append((st.conclusion, "c", i))
    return out


def _unwrap(clause: str) -> tuple[str, bool]:
    """Strip "It is not the case that" wrappers; True when an odd number was stripped."""
    neg = False
    while True:
        m = _WRAP.match(clause)
        if not m:
            return clause.strip(), neg
        clause, neg = clause[m.end():], not neg


def _has_not(clause: str) -> tuple[str, bool]:
    """Remove a verb negation ("does not start", "is not") and say whether there was one."""
    new, n = re.subn(r"\b(does|do|did) not (\w+)", lambda m: _affirm(m.group(2)), clause)
    if n:
        return new, True
    new, n = re.subn(r"\b(is|are|was|were) not\b", lambda m: m.group(1), clause)
    return new, bool(n)


def _affirm(verb: str) -> str:
    return {"have": "has", "multiply": "multiplies"}.get(verb, verb + ("es" if verb.endswith("s") else "s"))


# --- quantities -----------------------------------------------------------------------------------

_OP_VERB = {
    "increases": "add", "decreases": "sub", "multiplies": "mul", "divides": "div",
}
_ARITH_QUERY = re.compile(
    rf"^(?P<name>[A-Z][a-z]+) has (?P<n>{NUM}) (?P<items>[a-z]+)\. (?:She|He|They) (?P<ops>.+)\. "
    r"How many (?P=items) does (?P=name) have now\?$"
)
_ARITH_OP = re.compile(rf"^(?P<verb>buys|finds|receives|gives away|loses|sells) (?P<k>{NUM}) [a-z]+$")
_ADDING = {"buys": "add", "finds": "add", "receives": "add", "gives away": "sub", "loses": "sub", "sells": "sub"}

_UNIT_QUERY = re.compile(
    rf"^The (?P<obj>[a-z]+) is (?P<n>{NUM}) (?P<unit>[a-z]+) long\. How long is the (?P=obj) in (?P<target>[a-z]+)\?$"
)
CONVERSIONS: tuple[tuple[tuple[str, int, str], ...], ...] = (
    (("kilometers", 1000, "meters"), ("meters", 100, "centimeters"), ("centimeters", 10, "millimeters")),
    (("yards", 3, "feet"), ("feet", 12, "inches")),
    (("weeks", 7, "days"), ("days", 24, "hours"), ("hours", 60, "minutes"), ("minutes", 60, "seconds")),
)
TIME_UNITS = frozenset(u for chain in CONVERSIONS[2:] for (u, _, _) in chain) | {"seconds"}


def conversion_path(unit: str, target: str) -> list[tuple[str, int, str]] | None:
    """The chain of conversions from ``unit`` down to ``target``, or None."""
    for chain in CONVERSIONS:
        units = [c[0] for c in chain] + [chain[-1][2]]
        if unit in units and target in units and units.index(unit) < units.index(target):
            return list(chain[units.index(unit):units.index(target)])
    return None


def _apply(value: Fraction, op: str, k: Fraction) -> Fraction | None:
    if op == "add":
        return value + k
    if op == "sub":
        return value - k
    if op == "mul":
        return value * k
    if op == "div":
        return value / k if k != 0 else None
    return None


@dataclass
class QuantityProblem:
    """A start value and a list of operations (arithmetic chains and unit conversions)."""

    domain: str
    start: Fraction
    ops: list[tuple[str, Fraction]]
    subject: str  # Alice / rope
    unit: str  # apples / centimeters (the answer's unit)

    def _parse(self, clause: str) -> tuple[str, object, bool] | None:
        core, wrapped = _unwrap(clause)
        core, negated = _has_not(core)
        neg = wrapped ^ negated
        m = re.search(rf"\b(increases|decreases|multiplies|divides) the [a-z]+ by ({NUM})\b", core)
        if m:
            return "op", (_OP_VERB[m.group(1)], parse_number(m.group(2))), neg
        m = re.search(rf"\b(?:starts with|has|is|are) (?:more|less|fewer) than ({NUM})\b", core)
        if m:
            return "bound", parse_number(m.group(1)), neg
        m = re.search(rf"\b(?:starts with|has|is) ({NUM}) ([a-z]+)\b", core)
        if m:
            return "state", (parse_number(m.group(1)), m.group(2)), neg
        return None

    def derive(self, steps: list[str]) -> Derivation:
        """Faithful derivation from the steps, then the query's remaining operations."""
        value: Fraction | None = self.start
        covered = 0
        for clause, role, i in _clauses(steps):
            parsed = self._parse(clause)
            if parsed is None:
                continue
            kind, data, neg = parsed
            if kind == "op":
                covered += 1
            if neg:
                return Derivation(None, f"step {i} denies a premise")
            if kind == "bound":
                return Derivation(None, f"step {i} bounds the value without stating it")
            if role == "p":
                if kind == "op":
                    value = _apply(value, *data) if value is not None else None  # type: ignore[misc]
                else:
                    value = data[0]  # type: ignore[index]
            elif kind == "state":
                if value != data[0]:  # type: ignore[index]
                    return Derivation(None, f"step {i} claims a value that does not follow")
            else:
                return Derivation(None, f"step {i} claims an operation follows from a value")
        for op, k in self.ops[covered:]:
            value = _apply(value, op, k) if value is not None else None
        if value is None:
            return Derivation(None, "division by zero")
        return Derivation(value)

    def answer(self, d: Derivation, paraphrase: bool = False) -> str:
        """The final answer sentence for a derivation."""
        if self.domain == "arithmetic":
            if d.value is None:
                return f"The number of {self.unit} {self.subject} has cannot be determined from this reasoning."
            v = format_number(d.value)  # type: ignore[arg-type]
            if paraphrase:
                return f"In the end, {self.subject} has {v} {self.unit}."
            return f"{self.subject} has {v} {self.unit} in the end."
        if d.value is None:
            return f"The length of the {self.subject} in {self.unit} cannot be determined from this reasoning."
        v = format_number(d.value)  # type: ignore[arg-type]
        if paraphrase:
            return f"Measured in {self.unit}, the {self.subject} is {v} long."
        return f"The {self.subject} is {v} {self.unit} long."


# --- syllogisms ---------------------------------------------------------------------------------

_SYL_RULE = re.compile(r"^(?P<q>All|No|Some|Not all|all|no|some|not all) (?P<a>[a-z]+?)s are (?P<b>[a-z]+?)s$")
_SYL_MEMBER = re.compile(r"^(?P<name>[A-Z][a-z]+) is (?P<neg>not )?an? (?P<c>[a-z]+)$")
_SYL_QUERY = re.compile(r"^(?P<premises>.+) Is (?P<name>[A-Z][a-z]+) an? (?P<x>[a-z]+)\?$")
_NEG_Q = {"all": "not all", "no": "some", "some": "no", "not all": "all"}


@dataclass
class SyllogismProblem:
    """Categorical rules (all/no) and one individual's memberships; the question asks one."""

    name: str
    target: str
    rules: list[tuple[str, str, str]]  # (quantifier, a, b)
    members: dict[str, bool]  # category -> True (member) / False (not a member)

    def _parse(self, clause: str) -> tuple[str, object] | None:
        core, wrapped = _unwrap(clause)
        m = _SYL_RULE.match(core)
        if m:
            q = m.group("q").lower()
            return "rule", (_NEG_Q[q] if wrapped else q, m.group("a"), m.group("b"))
        m = _SYL_MEMBER.match(core)
        if m and m.group("name") == self.name:
            return "member", (m.group("c"), (m.group("neg") is None) ^ wrapped)
        return None

    @staticmethod
    def _close(rules: list[tuple[str, str, str]], members: dict[str, bool]) -> dict[str, bool] | None:
        facts = dict(members)
        changed = True
        while changed:
            changed = False
            for q, a, b in rules:
                new: list[tuple[str, bool]] = []
                if q == "all":
                    if facts.get(a) is True:
                        new.append((b, True))
                    if facts.get(b) is False:
                        new.append((a, False))
                elif q == "no":
                    if facts.get(a) is True:
                        new.append((b, False))
                    if facts.get(b) is True:
                        new.append((a, False))
                for cat, val in new:
                    if cat in facts and facts[cat] != val:
                        return None
                    if cat not in facts:
                        facts[cat] = val
                        changed = True
        return facts

    def _entails_rule(self, rules: list[tuple[str, str, str]], q: str, a: str, b: str) -> bool:
        if q == "all":  # a chain of all-rules from a to b
            seen, frontier = {a}, [a]
            while frontier:
                cur = frontier.pop()
                for rq, ra, rb in rules:
                    if rq == "all" and ra == cur and rb not in seen:
                        seen.add(rb)
                        frontier.append(rb)
            return b in seen
        return (q, a, b) in rules or (q == "no" and ("no", b, a) in rules)

    def derive(self, steps: list[str]) -> Derivation:
        """Faithful derivation: trace facts, then the query's unmentioned premises."""
        rules: list[tuple[str, str, str]] = []
        members: dict[str, bool] = {}
        mentioned_pairs: set[frozenset[str]] = set()
        mentioned_cats: set[str] = set()
        clauses = []
        for clause, role, i in _clauses(steps):
            parsed = self._parse(clause)
            if parsed is None:
                continue
            clauses.append((parsed, role, i))
            if parsed[0] == "rule":
                mentioned_pairs.add(frozenset(parsed[1][1:]))  # type: ignore[index]
            else:
                mentioned_cats.add(parsed[1][0])  # type: ignore[index]
        known_rules = [r for r in self.rules if frozenset(r[1:]) not in mentioned_pairs]
        known_members = {c: v for c, v in self.members.items() if c not in mentioned_cats}
        rules = list(known_rules)
        members = dict(known_members)
        for (kind, data), role, i in clauses:
            if role == "p":
                if kind == "rule":
                    rules.append(data)  # type: ignore[arg-type]
                else:
                    cat, val = data  # type: ignore[misc]
                    if members.get(cat, val) != val:
                        return Derivation(None, f"step {i} contradicts what is known")
                    members[cat] = val
                continue
            facts = self._close(rules, members)
            if facts is None:
                return Derivation(None, f"step {i} rests on contradictory premises")
            if kind == "rule":
                if not self._entails_rule(rules, *data):  # type: ignore[misc]
                    return Derivation(None, f"step {i} claims a rule that does not follow")
                rules.append(data)  # type: ignore[arg-type]
            else:
                cat, val = data  # type: ignore[misc]
                if facts.get(cat) is not val:
                    return Derivation(None, f"step {i} claims a membership that does not follow")
                members[cat] = val
        facts = self._close(rules, members)
        if facts is None:
            return Derivation(None, "the premises contradict each other")
        if self.target not in facts:
            return Derivation(None, "the premises do not settle the question")
        return Derivation(facts[self.target])

    def answer(self, d: Derivation, paraphrase: bool = False) -> str:
        art = "an" if self.target[:1] in "aeiou" else "a"
        if d.value is None:
            return f"It cannot be determined whether {self.name} is {art} {self.target}."
        if d.value:
            return (f"Yes: {self.name} is indeed {art} {self.target}." if paraphrase
                    else f"Yes, {self.name} is {art} {self.target}.")
        return (f"No: {self.name} is indeed not {art} {self.target}." if paraphrase
                else f"No, {self.name} is not {art} {self.target}.")


# --- comparisons --------------------------------------------------------------------------------

COMPARATIVES = {
    "taller": ("taller", "shorter", "shortest", "tallest"),
    "older": ("older", "younger", "youngest", "oldest"),
    "heavier": ("heavier", "lighter", "lightest", "heaviest"),
    "faster": ("faster", "slower", "slowest", "fastest"),
}
_CMP_WORD = {}
for _up, (_u, _d, _low, _high) in COMPARATIVES.items():
    _CMP_WORD[_u] = (_up, +1)
    _CMP_WORD[_d] = (_up, -1)
_CMP = re.compile(r"^(?P<a>[A-Z][a-z]+) is (?P<neg>not )?(?P<w>[a-z]+) than (?P<b>[A-Z][a-z]+)$")
_CMP_QUERY = re.compile(r"^(?P<premises>.+) Who is the (?P<w>[a-z]+)\?$")


@dataclass
class ComparisonProblem:
    """A strict order along one dimension; the question asks for its lowest element."""

    dimension: str  # taller / older / ...
    people: list[str]
    relations: list[tuple[str, str]]  # (x, y): x is above y
    superlative: str = field(default="")

    def _parse(self, clause: str) -> tuple[str, str, str, bool] | None:
        core, wrapped = _unwrap(clause)
        m = _CMP.match(core)
        if not m or m.group("w") not in _CMP_WORD:
            return None
        dim, sign = _CMP_WORD[m.group("w")]
        if dim != self.dimension:
            return None
        a, b = m.group("a"), m.group("b")
        hi, lo = (a, b) if sign > 0 else (b, a)
        return hi, lo, dim, (m.group("neg") is not None) ^ wrapped

    @staticmethod
    def _above(rel: set[tuple[str, str]], x: str, y: str) -> bool:
        seen, frontier = {x}, [x]
        while frontier:
            cur = frontier.pop()
            for a, b in sorted(rel):
                if a == cur and b not in seen:
                    if b == y:
                        return True
                    seen.add(b)
                    frontier.append(b)
        return False

    def derive(self, steps: list[str]) -> Derivation:
        """Faithful derivation of the lowest element from trace relations and unmentioned premises."""
        parsed = []
        mentioned: set[frozenset[str]] = set()
        for clause, role, i in _clauses(steps):
            p = self._parse(clause)
            if p is None:
                continue
            parsed.append((p, role, i))
            mentioned.add(frozenset(p[:2]))
        rel = {r for r in self.relations if frozenset(r) not in mentioned}
        for (hi, lo, _dim, neg), role, i in parsed:
            if role == "p":
                if not neg:
                    rel.add((hi, lo))
                continue
            holds = self._above(rel, lo, hi) if neg else self._above(rel, hi, lo)
            if not holds:
                return Derivation(None, f"step {i} claims an order that does not follow")
            if not neg:
                rel.add((hi, lo))
        if any(self._above(rel, p, p) for p in self.people):
            return Derivation(None, "the order is cyclic")
        lowest = [p for p in self.people if all(q == p or self._above(rel, q, p) for q in self.people)]
        if len(lowest) != 1:
            return Derivation(None, "the premises do not settle the question")
        return Derivation(lowest[0])

    def answer(self, d: Derivation, paraphrase: bool = False) -> str:
        sup = COMPARATIVES[self.dimension][2]
        if d.value is None:
            return f"It cannot be determined who is the {sup}."
        return f"The {sup} one is {d.value}." if paraphrase else f"{d.value} is the {sup}."


Problem = QuantityProblem | SyllogismProblem | ComparisonProblem


def _sentences(text: str) -> list[str]:
    return [s.rstrip(".") for s in re.split(r"(?<=\.)\s+", text.strip()) if s]


def parse_query(query: str) -> Problem | None:
    """The problem a query states in the controlled language, or None."""
    q = query.strip()
    m = _ARITH_QUERY.match(q)
    if m:
        ops = []
        for part in m.group("ops").split(", then "):
            om = _ARITH_OP.match(part.strip())
            if not om:
                return None
            ops.append((_ADDING[om.group("verb")], parse_number(om.group("k"))))
        return QuantityProblem("arithmetic", parse_number(m.group("n")), ops,  # type: ignore[arg-type]
                               m.group("name"), m.group("items"))
    m = _UNIT_QUERY.match(q)
    if m:
        path = conversion_path(m.group("unit"), m.group("target"))
        if path is None:
            return None
        return QuantityProblem("unit", parse_number(m.group("n")),  # type: ignore[arg-type]
                               [("mul", Fraction(f)) for (_, f, _) in path], m.group("obj"), m.group("target"))
    m = _SYL_QUERY.match(q)
    if m:
        rules, members = [], {}
        for sentence in _sentences(m.group("premises")):
            rm = _SYL_RULE.match(sentence)
            mm = _SYL_MEMBER.match(sentence)
            if rm:
                rules.append((rm.group("q").lower(), rm.group("a"), rm.group("b")))
            elif mm and mm.group("name") == m.group("name"):
                members[mm.group("c")] = mm.group("neg") is None
            else:
                return None
        return SyllogismProblem(m.group("name"), m.group("x"), rules, members)
    m = _CMP_QUERY.match(q)
    if m:
        dims = [d for d, words in COMPARATIVES.items() if words[2] == m.group("w")]
        if not dims:
            return None
        rels, people = [], []
        for sentence in _sentences(m.group("premises")):
            cm = _CMP.match(sentence)
            if not cm or cm.group("neg") or _CMP_WORD.get(cm.group("w"), ("", 0))[0] != dims[0]:
                return None
            _, sign = _CMP_WORD[cm.group("w")]
            a, b = cm.group("a"), cm.group("b")
            rels.append((a, b) if sign > 0 else (b, a))
            for p in (a, b):
                if p not in people:
                    people.append(p)
        return ComparisonProblem(dims[0], people, rels)
    return None
