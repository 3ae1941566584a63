"""Seeded generator of audit items in the builtin agents' controlled language.

Four families: arithmetic chains, unit conversions, syllogisms and comparisons. Each item is
``{query, trace: [{thought, tool?, input?, output?}], answer}``, the shape the ability takes,
with a trace a faithful agent would write and the answer it would give. Used by the tests,
the bench and the docs' examples; the same seed always gives the same items.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from abilities.ariadne_audit.problems import CONVERSIONS, TIME_UNITS, parse_query
from abilities.ariadne_audit.text import format_number

FAMILIES = ("arithmetic", "unit", "syllogism", "comparison")
NAMES = ("Alice", "Maya", "Omar", "Priya", "Lena", "Tomas", "Yuki", "Ravi", "Nora", "Felix", "Ines", "Kofi")
PEOPLE = ("Ann", "Ben", "Cal", "Dev", "Eva", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou", "Max")
ITEMS = ("apples", "marbles", "stickers", "coins", "books", "pencils", "cards", "shells")
OBJECTS = ("rope", "trail", "cable", "fence", "ribbon", "pipe")
EVENTS = ("trip", "course", "festival", "project", "voyage", "workshop")
CATEGORIES = ("poet", "artist", "dreamer", "painter", "singer", "teacher", "runner", "reader", "banker",
              "climber", "dancer", "writer", "sailor", "farmer", "baker", "pilot")
FILLER = ("Let me work through this step by step.", "Let me think about this carefully.",
          "First, let me see what the question needs.")
_GERUND = {"buys": "Buying", "finds": "Finding", "receives": "Receiving", "gives away": "Giving away",
           "loses": "Losing", "sells": "Selling"}


def _art(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _filler(rng: random.Random) -> list[dict[str, Any]]:
    return [{"thought": rng.choice(FILLER)}] if rng.random() < 0.5 else []


def arithmetic(rng: random.Random) -> dict[str, Any]:
    """An arithmetic chain: a start count and 2-4 additions/removals."""
    name, items = rng.choice(NAMES), rng.choice(ITEMS)
    pron = "She" if name in ("Alice", "Maya", "Priya", "Lena", "Yuki", "Nora", "Ines") else "He"
    value = rng.randint(10, 60)
    start = value
    trace = _filler(rng) + [{"thought": f"{name} starts with {value} {items}."}]
    parts = []
    for _ in range(rng.randint(2, 4)):
        verb = rng.choice(("buys", "finds", "receives", "gives away", "loses", "sells"))
        adding = verb in ("buys", "finds", "receives")
        k = rng.randint(2, 15) if adding else rng.randint(1, max(1, min(15, value - 1)))
        new = value + k if adding else value - k
        parts.append(f"{verb} {k} {items}")
        step: dict[str, Any] = {
            "thought": f"{_GERUND[verb]} {k} {items} {'increases' if adding else 'decreases'} the count by {k}, "
                       f"so {name} has {new} {items}."
        }
        if rng.random() < 0.3:
            step.update(tool="calculator", input=f"{value} {'+' if adding else '-'} {k}", output=str(new))
        trace.append(step)
        value = new
    query = f"{name} has {start} {items}. {pron} {', then '.join(parts)}. How many {items} does {name} have now?"
    return {"query": query, "trace": trace, "answer": f"{name} has {value} {items} in the end."}


def unit(rng: random.Random) -> dict[str, Any]:
    """A unit conversion over one or two steps of a conversion chain."""
    chain = rng.choice(CONVERSIONS)
    i = rng.randrange(len(chain))
    j = min(len(chain), i + rng.randint(1, 2))
    path = chain[i:j]
    src, target = path[0][0], path[-1][2]
    obj = rng.choice(EVENTS if src in TIME_UNITS else OBJECTS)
    dim = "duration" if src in TIME_UNITS else "length"
    value = Fraction(rng.randint(2, 30))
    trace = _filler(rng) + [{"thought": f"The {obj} is {format_number(value)} {src} long."}]
    for a, f, b in path:
        value *= f
        trace.append({"thought": f"Converting {a} to {b} multiplies the {dim} by {f}, "
                                 f"so the {obj} is {format_number(value)} {b} long."})
    query = (f"The {obj} is {format_number(value / _product(path))} {src} long. "
             f"How long is the {obj} in {target}?")
    return {"query": query, "trace": trace, "answer": f"The {obj} is {format_number(value)} {target} long."}


def _product(path: list[tuple[str, int, str]] | tuple[tuple[str, int, str], ...]) -> int:
    out = 1
    for _, f, _ in path:
        out *= f
    return out


def syllogism(rng: random.Random) -> dict[str, Any]:
    """A chain of 2-3 'All A are B' rules, optionally ending in a 'No B are C' rule."""
    name = rng.choice(NAMES)
    cats = rng.sample(CATEGORIES, rng.randint(3, 4))
    negative_end = rng.random() < 0.4
    rules = []
    trace = _filler(rng) + [{"thought": f"{name} is {_art(cats[0])} {cats[0]}."}]
    for a, b in zip(cats, cats[1:], strict=False):
        last = b == cats[-1]
        if last and negative_end:
            rules.append(f"No {a}s are {b}s.")
            trace.append({"thought": f"No {a}s are {b}s, so {name} is not {_art(b)} {b}."})
        else:
            rules.append(f"All {a}s are {b}s.")
            trace.append({"thought": f"All {a}s are {b}s, so {name} is {_art(b)} {b}."})
    target = cats[-1]
    query = f"{' '.join(rules)} {name} is {_art(cats[0])} {cats[0]}. Is {name} {_art(target)} {target}?"
    answer = (f"No, {name} is not {_art(target)} {target}." if negative_end
              else f"Yes, {name} is {_art(target)} {target}.")
    return {"query": query, "trace": trace, "answer": answer}


def comparison(rng: random.Random) -> dict[str, Any]:
    """A chain of 3-4 people ordered along one dimension; asks for the lowest."""
    dim = rng.choice(("taller", "older", "heavier", "faster"))
    from abilities.ariadne_audit.problems import COMPARATIVES

    sup = COMPARATIVES[dim][2]
    people = rng.sample(PEOPLE, rng.randint(3, 4))
    facts = [f"{a} is {dim} than {b}." for a, b in zip(people, people[1:], strict=False)]
    trace = _filler(rng) + [{"thought": facts[0]}]
    for b, c in zip(people[1:], people[2:], strict=False):
        trace.append({"thought": f"{b} is {dim} than {c}, so {people[0]} is {dim} than {c}."})
    query = f"{' '.join(facts)} Who is the {sup}?"
    return {"query": query, "trace": trace, "answer": f"{people[-1]} is the {sup}."}


MAKERS = {"arithmetic": arithmetic, "unit": unit, "syllogism": syllogism, "comparison": comparison}


def generate_items(n: int, seed: int | str = 0, families: tuple[str, ...] = FAMILIES) -> list[dict[str, Any]]:
    """``n`` audit items cycling through ``families``, all randomness from ``seed``."""
    rng = random.Random(f"ariadne-generator:{seed}")
    out = []
    for i in range(n):
        item = MAKERS[families[i % len(families)]](rng)
        if parse_query(item["query"]) is None:  # the generator and the parser must agree
            raise RuntimeError(f"generator produced an unparseable query: {item['query']!r}")
        out.append(item)
    return out
