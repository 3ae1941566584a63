"""The word-level reader's view of numbers: how each is stated (ceiling, floor, range), in a text span.

Numbers and units are read by ``measure`` (the one reader of amounts: its number words and its unit
table, converted with pint), so both readings agree on what "half a dozen", "15 knots" or "84 °F"
are; this module adds only what the word-level rules need on top (the comparison operator, the noun
a count is of, rates, clock-time sets, weekdays). Values are in base units (seconds, metres,
kilograms, kelvin, bytes; rates per second).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from abilities.scu_guard import measure
from abilities.scu_guard.lexicon import DAYS, STOP, norm_stem

TIMES_WORDS = ("once", "twice", "thrice")
_ALIASES = {"°": "degC", "c": "degC"}  # "30 °" and "30 C" as the word-level rules have always read them
_DIM_NAMES = {"[time]": "duration", "[length]": "length", "[mass]": "mass", "[temperature]": "temperature"}

TIME_RE = re.compile(
    r"\b(?:(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ap>am|pm|a\.m\.|p\.m\.)?|(?P<h2>\d{1,2})\s*(?P<ap2>am|pm|a\.m\.|p\.m\.)"
    r"|(?P<noon>noon|midday|midnight))(?!\w)",
    re.I,
)
NUM_RE = re.compile(
    r"(?<![\w.:-])(?P<num>(?:(?<=\s)[-−])?\d+(?:[.,]\d+)?|"
    + "|".join(re.escape(w) for w in sorted((w for w in measure.NUMBER_WORDS if len(w) > 2), key=len, reverse=True))
    + r"|once|twice|thrice|an?(?=\s+(?:second|minute|hour|day|week|month|year)\b))(?:-|\s*)(?P<unit>°?[a-zA-Z%]+|°)?",
    re.I,
)
WORD_RE = re.compile(r"[a-zA-Z%/]+")

LE = re.compile(
    r"(?:at most|no more than|not more than|up to|a maximum of|maximum of|maximum|max\.?|no longer than|"
    r"(?:not|never|n't) (?:to )?exceed|within|at or below|no later than|capped at|cap of|limited to|"
    r"limit of|as many as|as much as|as long as|no greater than)\s*$",
    re.I,
)
GE = re.compile(
    r"(?:at least|no fewer than|no less than|not less than|a minimum of|minimum of|minimum|min\.?|"
    r"at or above|at or after|no shorter than|no sooner than)\s*$",
    re.I,
)
GT = re.compile(
    r"(?:more than|over|above|greater than|longer than|exceeds?|exceeding|beyond|after|"
    r"later than|higher than|taller than|larger than|bigger than|heavier than|wider than|deeper than)\s*$",
    re.I,
)
LT = re.compile(
    r"(?:less than|fewer than|under|below|shorter than|before|sooner than|lower than|smaller than|"
    r"lighter than|colder than)\s*$",
    re.I,
)
NEG_BEFORE = re.compile(r"\b(?:not|never|n't|no)\s+(?:\w+\s+){0,2}$", re.I)  # "no room holds more than"
AGE_AFTER = re.compile(r"^[-\s]?(?:years?|yrs?)?[-\s]?olds?\b", re.I)
AGE_BEFORE = re.compile(r"\b(?:aged|age|ages)\s*$", re.I)
AFTER_LE = re.compile(
    r"^\s*(?:or (?:less|fewer|below|lower|shorter)|maximum|max\b|limit|cap|at most|at the latest|at the most)",
    re.I,
)
AFTER_GE = re.compile(
    r"^\s*(?:or (?:more|longer|above|higher|greater)|\+|minimum|min\b|at least|at the earliest)", re.I
)
DISPOSE_AFTER = re.compile(
    r"(?:discard|delet|purg|remov|destroy|expir|dispos|erase|thr[oe]wn?(?:\s+\w+){0,2}\s+away)\w*\s+(?:\w+\s+){0,3}?"
    r"(?:after|within)\s*$",
    re.I,
)
REQUIRE_N = re.compile(r"(?:requires?|needs?|must have|must get|takes?)\s*$", re.I)
RANGE_RE = re.compile(
    r"(?P<between>between\s+)?(?P<a>\d+(?:\.\d+)?)\s*(?:%|°\s*c|[a-z]+(?=\s+(?:and|to)\s+\d))?\s*(?P<sep>-|–|to|and)\s*"
    r"(?P<b>\d+(?:\.\d+)?)(?![\d:])",
    re.I,
)
PER_RE = re.compile(r"^\s*(?:[a-z-]+\s+){0,3}?(?:per|a|an|each|every|/)\s*(?P<u>[a-z]+)", re.I)
UNLIMITED_RE = re.compile(
    r"\b(?:unlimited|unbounded|infinite(?:ly)?|indefinitely|limitless|no limit|"
    r"without (?:a |any )?limit|no cap|no maximum)\b",
    re.I,
)
COPULA = frozenset({"is", "are", "was", "were", "be", "can", "may", "must", "will", "should", "might"})


@dataclass(frozen=True)
class Quantity:
    """A number found in text: [lo, hi] after normalization, its dimension and how it was stated.

    ``form``: "point" (=), "ceiling" (<= / <), "floor" (>= / >), "range", "unlimited".
    ``dim``: "duration", "size", "percent", "count", or "rate".
    """

    lo: float
    hi: float
    form: str
    dim: str
    nouns: frozenset[str]
    start: int
    end: int
    comparative: bool = False
    subject_position: bool = False


def unit_of(word: str | None) -> tuple[str, str, str] | None:
    """(dimension, unit name, noun) for a unit word, or None: the unit table is ``measure``'s."""
    if not word:
        return None
    w = word.lower()
    if w == "%" or w in ("percent", "pct"):
        return ("percent", "", "percent")
    if w in measure.DATA_SIZES:
        return ("size", w, w)
    if w == "age":
        return ("age", "", "age")
    for cand in (w, norm_stem(w), w.rstrip("s")):
        name = measure.UNIT_WORDS.get(cand) or _ALIASES.get(cand)
        if name is None or name.startswith("money:") or name in ("percent", "ppm"):
            continue
        dim = measure.dimension_of(name)
        return (_DIM_NAMES.get(dim, dim), name, "length" if dim == "[length]" else cand)
    return None


def _base(unit: tuple[str, str, str], v: float) -> float:
    """A value in the unit, in base units (pint through ``measure``; sizes in bytes)."""
    dim, name, _ = unit
    if dim == "size":
        return v * measure.DATA_SIZES[name]
    if not name or math.isinf(v):
        return v
    return measure.to_base(v, name)[1]


def _value(raw: str) -> float:
    low = raw.lower().replace("−", "-")
    if low in TIMES_WORDS:
        return float(TIMES_WORDS.index(low) + 1)
    if not low[:1].isdigit() and not low.startswith("-"):
        n = measure._number(low)  # number words: measure's table ("half a dozen", "a quarter of an")
        if n is not None:
            return n
    return (
        float(low.replace(",", ""))
        if low.count(",") and len(low.split(",")[-1]) == 3
        else float(low.replace(",", "."))
    )


def find_quantities(text: str, start: int, end: int, masked: list[tuple[int, int]]) -> list[Quantity]:
    """Numbers in ``text[start:end]`` (absolute offsets), skipping masked spans (clock times)."""
    out: list[Quantity] = []
    seg = text[start:end]
    taken: list[tuple[int, int]] = []
    for m in RANGE_RE.finditer(seg):
        a, b = float(m.group("a")), float(m.group("b"))
        s_abs, e_abs = start + m.start(), start + m.end()
        if any(ms < e_abs and s_abs < me for ms, me in masked) or b < a:
            continue
        if not m.group("between") and m.group("sep") not in ("-", "–"):
            continue  # "2 to 5" needs "between" or a dash: "up to 100% and 5 days" is not a range
        q = _build(text, seg, m.end(), start, a, b, "range", s_abs, e_abs)
        if q is not None:
            out.append(q)
            taken.append((s_abs, e_abs))
    for m in NUM_RE.finditer(seg):
        s_abs, e_abs = start + m.start(), start + m.end()
        if any(ms < e_abs and s_abs < me for ms, me in masked + taken):
            continue
        raw = m.group("num")
        is_word = not raw[0].isdigit()
        unit_word = m.group("unit")
        if unit_word and unit_word.lower() in ("per", "a", "an", "each", "every"):
            unit_word = None  # "3 per day": a rate with no noun
        if raw.lower() in TIMES_WORDS:
            unit_word = "times"
            unit_end = m.start("num") + len(raw)
        else:
            unit_end = m.end("unit") if unit_word else m.end("num")
        if is_word and not unit_word:
            continue
        if raw.lower() in ("a", "an") and re.search(
            r"(?:times|per|once|twice|thrice|each|every)\s*$", seg[max(0, m.start() - 10) : m.start()], re.I
        ):
            continue
        v = _value(raw)
        before = seg[max(0, m.start() - 40) : m.start()]
        if AGE_AFTER.match(seg[m.end("num") :]) or (AGE_BEFORE.search(before) and unit_of(unit_word) is None):
            unit_word, unit_end = "age", m.end("num")  # "14-year-old", "aged 17": an age, not a duration
            after_age = AGE_AFTER.match(seg[m.end("num") :])
            if after_age:
                unit_end = m.end("num") + after_age.end()
        after = seg[unit_end : unit_end + 30]
        form, lo, hi, comparative = "point", v, v, False
        if DISPOSE_AFTER.search(before):  # "discarded after 3 days": kept at most 3 days
            form, lo, hi = "ceiling", -math.inf, v
        elif AFTER_LE.search(after) and not GE.search(before):
            form, lo, hi = "ceiling", -math.inf, v
        elif REQUIRE_N.search(before):
            form, lo, hi = "floor", v, math.inf
        elif LE.search(before):
            form, lo, hi = "ceiling", -math.inf, v
        elif GE.search(before):
            form, lo, hi = "floor", v, math.inf
        elif (g := GT.search(before)) is not None:
            form, lo, hi, comparative = "floor", math.nextafter(v, math.inf), math.inf, True
            if NEG_BEFORE.search(before[: g.start()]):
                form, lo, hi, comparative = "ceiling", -math.inf, v, False
        elif (g := LT.search(before)) is not None:
            form, lo, hi, comparative = "ceiling", -math.inf, math.nextafter(v, -math.inf), True
            if NEG_BEFORE.search(before[: g.start()]):
                form, lo, hi, comparative = "floor", v, math.inf, False
        elif AFTER_LE.search(after):
            form, lo, hi = "ceiling", -math.inf, v
        elif AFTER_GE.search(after):
            form, lo, hi = "floor", v, math.inf
        q = _build(
            text,
            seg,
            unit_end,
            start,
            lo,
            hi,
            form,
            s_abs,
            start + unit_end,
            unit_word=unit_word,
            comparative=comparative,
        )
        if q is not None:
            out.append(q)
    for m in UNLIMITED_RE.finditer(seg):
        out.append(
            Quantity(math.inf, math.inf, "unlimited", "any", frozenset(), start + m.start(), start + m.end())
        )
    return out


def _build(
    text: str,
    seg: str,
    unit_end: int,
    base: int,
    lo: float,
    hi: float,
    form: str,
    s_abs: int,
    e_abs: int,
    unit_word: str | None = None,
    comparative: bool = False,
) -> Quantity | None:
    rest = seg[unit_end:]
    words = WORD_RE.findall(rest)[:3]
    if unit_word is None:
        unit_word = words[0] if words else None
        words = words[1:]
    u = unit_of(unit_word)
    nouns: set[str] = set()
    if u is None:
        dim = "count"
        if unit_word and unit_word.lower() not in STOP:
            nouns.add(norm_stem(unit_word))
            nouns.update(norm_stem(w) for w in words[:1] if w.lower() not in STOP and w.lower() != "per")
    else:
        dim = u[0]
        if dim == "length":  # "10 km/h" stays apart from "10 items/h" once it becomes a rate
            nouns.add("length")
        lo, hi = _base(u, lo), _base(u, hi)
    per = PER_RE.match(rest if unit_word is None else seg[unit_end:])
    if per is not None and dim in ("count", "size", "length"):
        pu = unit_of(per.group("u"))
        if pu is not None and pu[0] == "duration":
            dim = "rate"
            lo, hi = lo / _base(pu, 1.0), hi / _base(pu, 1.0)
    before = seg[: s_abs - base]
    after_words = {w.lower() for w in WORD_RE.findall(seg[unit_end:])}
    before_words = {w.lower() for w in WORD_RE.findall(before)}
    subject_position = bool(COPULA & after_words) and not (COPULA & before_words)
    return Quantity(
        lo, hi, form, dim, frozenset(n for n in nouns if n), s_abs, e_abs, comparative, subject_position
    )


@dataclass(frozen=True)
class TimeSet:
    """Minutes of the day [lo, hi) and weekdays (0=Monday) a text span talks about."""

    lo: float
    hi: float
    start: int
    end: int


def _minutes(m: re.Match[str]) -> float:
    if m.group("noon"):
        return 0.0 if m.group("noon").lower() == "midnight" else 720.0
    h = int(m.group("h") or m.group("h2"))
    mi = int(m.group("m") or 0)
    ap = (m.group("ap") or m.group("ap2") or "").lower().replace(".", "")
    if ap == "pm" and h < 12:
        h += 12
    if ap == "am" and h == 12:
        h = 0
    return float(h * 60 + mi)


def find_times(text: str, start: int, end: int) -> list[TimeSet]:
    """Clock-time mentions as minute intervals: 'at 7:30' is a point, 'before 9:00' is [0, 540)."""
    seg = text[start:end]
    out: list[TimeSet] = []
    matches = list(TIME_RE.finditer(seg))
    used: set[int] = set()
    for i, m in enumerate(matches):
        if i in used:
            continue
        t = _minutes(m)
        before = seg[max(0, m.start() - 25) : m.start()].lower()
        if i + 1 < len(matches) and re.fullmatch(
            r"\s*(?:-|–|to|and|until|till)\s*", seg[m.end() : matches[i + 1].start()], re.I
        ):
            t2 = _minutes(matches[i + 1])
            used.add(i + 1)
            out.append(TimeSet(t, t2, start + m.start(), start + matches[i + 1].end()))
            continue
        if re.search(r"(?:at or after|from|after|starting(?: at)?|later than|no earlier than)\s*$", before):
            out.append(TimeSet(t, 1440.0, start + m.start(), start + m.end()))
        elif re.search(r"(?:until|till|up to)\s*$", before):  # "open until 01:00": the evening up to T
            end_t = 1440.0 if t == 0 else t
            if end_t < 360:
                out.append(TimeSet(1080.0, 1440.0, start + m.start(), start + m.end()))
                out.append(TimeSet(0.0, end_t + 1, start + m.start(), start + m.end()))
            else:
                out.append(TimeSet(max(0.0, end_t - 360), end_t + 1, start + m.start(), start + m.end()))
        elif re.search(r"(?:at or before|before|by|earlier than|no later than)\s*$", before):
            lo_end = t + 1 if "at or before" in before else t
            out.append(TimeSet(0.0, lo_end, start + m.start(), start + m.end()))
        else:
            out.append(TimeSet(t, t + 1, start + m.start(), start + m.end()))
    return out


DAY_RANGE_RE = re.compile(r"\b(?P<a>[a-z]{3,9})\s*(?:-|–|to|through|thru|until)\s*(?P<b>[a-z]{3,9})\b", re.I)
DAY_RE = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|"
    r"sun|weekends?|weekdays?)s?\b",
    re.I,
)


def find_days(text: str, start: int, end: int) -> tuple[frozenset[int], list[tuple[int, int]]]:
    """Weekdays mentioned in the span (ranges expanded), with the spans that named them."""
    seg = text[start:end]
    days: set[int] = set()
    spans: list[tuple[int, int]] = []
    covered: list[tuple[int, int]] = []
    for m in DAY_RANGE_RE.finditer(seg):
        a, b = m.group("a").lower(), m.group("b").lower()
        if a in DAYS and b in DAYS:
            i, j = DAYS[a], DAYS[b]
            k = i
            while True:
                days.add(k)
                if k == j:
                    break
                k = (k + 1) % 7
            spans.append((start + m.start(), start + m.end()))
            covered.append((m.start(), m.end()))
    for m in DAY_RE.finditer(seg):
        if any(cs <= m.start() < ce for cs, ce in covered):
            continue
        w = m.group(1).lower()
        if w.startswith("weekend"):
            days.update({5, 6})
        elif w.startswith("weekday"):
            days.update({0, 1, 2, 3, 4})
        else:
            days.add(DAYS[w])
        spans.append((start + m.start(), start + m.end()))
    return frozenset(days), spans
