"""Amounts in text: a number, its unit (converted with pint), its direction and whether it is a period.

Why its own module: numbers were the largest cause of misses (periodic rules read as counts,
units not known, business vs calendar days, quantity words). Every amount is normalised once to
base units through pint, so "15 knots" compares with "20 km/h" and "1,200 mrem" with "20 mSv".
A period ("every 5 days", "twice a week", "monthly") is kept apart from a duration ("within 5
days") by ``period``: both are seconds, but a period is the interval between two occurrences.
Business days carry the span of calendar days they can cover (``lo``..``hi``). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from abilities.scu_guard import shares


@cache
def _registry() -> Any:
    """pint's unit registry, built on first use: building it takes about half a second, which the
    service should not pay at start-up (the guard may never be called)."""
    import pint

    ureg = pint.UnitRegistry()
    ureg.define("ntu = [turbidity]")
    ureg.define("lufs = [loudness]")
    ureg.define("dba = [sound_level]")  # pint's decibel is a logarithmic ratio; a level in dB(A) is read as is
    ureg.define("decade_of_years = 10 * year")  # pint's own "decade" is a logarithmic ratio
    return ureg

# surface form -> pint unit name (or a dimension of our own: money, count)
UNIT_WORDS: dict[str, str] = {
    **{w: "millisecond" for w in ("ms", "millisecond", "milliseconds")},
    **{w: "second" for w in ("s", "sec", "secs", "second", "seconds")},
    **{w: "minute" for w in ("min", "mins", "minute", "minutes")},
    **{w: "hour" for w in ("h", "hr", "hrs", "hour", "hours")},
    **{w: "day" for w in ("day", "days", "calendar day", "calendar days")},
    **{w: "week" for w in ("week", "weeks", "wk", "wks")},
    **{w: "fortnight" for w in ("fortnight", "fortnights")},
    **{w: "month" for w in ("month", "months")},
    **{w: "year" for w in ("year", "years", "yr", "yrs")},
    **{w: "decade_of_years" for w in ("decade", "decades")},
    **{w: "mile / hour" for w in ("mph", "miles per hour", "mile per hour")},
    **{w: "kilometer / hour" for w in ("km/h", "kph", "kmh", "km per hour", "kilometres per hour",
                                         "kilometers per hour")},
    **{w: "knot" for w in ("knot", "knots", "kn", "kt", "kts")},
    **{w: "meter / second" for w in ("m/s", "metres per second", "meters per second")},
    **{w: "degC" for w in ("°c", "ºc", "degrees c", "degrees celsius", "celsius", "deg c")},
    **{w: "degF" for w in ("°f", "ºf", "degrees f", "degrees fahrenheit", "fahrenheit", "deg f")},
    **{w: "milligram" for w in ("mg", "milligram", "milligrams")},
    **{w: "gram" for w in ("g", "gram", "grams")},
    **{w: "kilogram" for w in ("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos")},
    **{w: "pound" for w in ("lb", "lbs", "pound", "pounds")},
    **{w: "tonne" for w in ("t", "tonne", "tonnes", "metric ton", "metric tons")},
    **{w: "millimeter" for w in ("mm", "millimetre", "millimetres", "millimeter", "millimeters")},
    **{w: "centimeter" for w in ("cm", "centimetre", "centimetres", "centimeter", "centimeters")},
    **{w: "meter" for w in ("m", "metre", "metres", "meter", "meters")},
    **{w: "kilometer" for w in ("km", "kilometre", "kilometres", "kilometer", "kilometers")},
    **{w: "foot" for w in ("ft", "foot", "feet")},
    **{w: "inch" for w in ("in.", "inch", "inches")},
    **{w: "mile" for w in ("mile", "miles", "statute mile", "statute miles")},
    **{w: "nautical_mile" for w in ("nautical mile", "nautical miles", "nmi", "nm")},
    **{w: "milligram / liter" for w in ("mg/l", "milligrams per litre", "milligrams per liter")},
    **{w: "percent" for w in ("%", "percent", "per cent", "pct")},
    **{w: "ppm" for w in ("ppm",)},
    **{w: "millisievert" for w in ("msv", "millisievert", "millisieverts")},
    **{w: "microsievert" for w in ("µsv", "usv", "microsievert", "microsieverts")},
    **{w: "sievert" for w in ("sv", "sievert", "sieverts")},
    **{w: "rem" for w in ("rem",)},
    **{w: "millirem" for w in ("mrem", "millirem")},
    **{w: "ntu" for w in ("ntu",)},
    **{w: "psi" for w in ("psi",)},
    **{w: "bar" for w in ("bar",)},
    **{w: "millibar" for w in ("mbar", "millibar", "millibars")},
    **{w: "kilopascal" for w in ("kpa", "kilopascal", "kilopascals")},
    **{w: "liter" for w in ("litre", "litres", "liter", "liters")},
    **{w: "milliliter" for w in ("ml", "millilitre", "millilitres", "milliliter", "milliliters")},
    **{w: "gallon" for w in ("gallon", "gallons", "gal", "us gallon", "us gallons")},
    **{w: "imperial_gallon" for w in ("imperial gallon", "imperial gallons")},
    **{w: "yard" for w in ("yd", "yds", "yard", "yards")},
    **{w: "inch / second" for w in ("in/s", "inches per second")},
    **{w: "foot / second" for w in ("ft/s", "feet per second")},
    **{w: "ounce" for w in ("oz", "ounce", "ounces")},
    **{w: "millimeter / second" for w in ("mm/s", "millimetres per second", "millimeters per second")},
    **{w: "milligram / meter ** 3" for w in ("mg/m³", "mg/m3", "milligrams per cubic metre")},
    **{w: "gram / meter ** 2" for w in ("g/m²", "g/m2", "gsm", "grams per square metre")},
    # volumes and flows: "15 cubic metres per second" is a flow, "14 litres per second" no volume of 14 litres
    **{w: "meter ** 3" for w in ("m³", "m3", "cubic metre", "cubic metres", "cubic meter", "cubic meters")},
    **{w: "meter ** 3 / second" for w in ("m³/s", "m3/s", "cumecs", "cubic metres per second",
                                           "cubic meters per second", "cubic metre per second",
                                           "cubic meter per second")},
    **{w: "foot ** 3 / second" for w in ("cfs", "ft³/s", "ft3/s", "cubic feet per second")},
    **{w: "liter / second" for w in ("l/s", "litres per second", "liters per second", "litre per second",
                                      "liter per second")},
    **{w: "liter / minute" for w in ("l/min", "lpm", "litres per minute", "liters per minute", "litre per minute",
                                      "liter per minute")},
    **{w: "gallon / minute" for w in ("gpm", "gallons per minute", "gallon per minute")},
    **{w: "micrometer" for w in ("µm", "μm", "micron", "microns", "micrometre", "micrometres")},
    **{w: "volt" for w in ("v", "volt", "volts")},
    **{w: "kilovolt" for w in ("kv", "kilovolt", "kilovolts")},
    **{w: "dba" for w in ("db", "dba", "db(a)", "decibels", "decibel")},
    **{w: "lufs" for w in ("lufs", "lkfs")},
    **{w: "money:USD" for w in ("usd", "dollar", "dollars", "us dollars", "$")},
    **{w: "money:EUR" for w in ("eur", "euro", "euros", "€")},
    **{w: "money:GBP" for w in ("gbp", "£", "pounds sterling")},
    # force, torque and power ("N", "W", "Nm", "kN", "mW" and "MW" are told by their case: CASED_UNITS)
    **{w: "newton" for w in ("newton", "newtons")},
    **{w: "kilonewton" for w in ("kilonewton", "kilonewtons")},
    **{w: "newton * meter" for w in ("n·m", "n⋅m", "n-m", "newton metre", "newton metres", "newton meter",
                                       "newton meters", "newton-metre", "newton-metres", "newton-meter",
                                       "newton-meters")},
    **{w: "pound_force * foot" for w in ("lb-ft", "lb·ft", "lb ft", "lbf-ft", "lbf·ft", "lbf ft", "ft-lb", "ft-lbs",
                                           "ft·lb", "ft·lbf", "ft-lbf", "foot-pound", "foot-pounds", "pound-foot",
                                           "pound-feet", "foot pounds", "pound feet")},
    **{w: "watt" for w in ("watt", "watts")},
    **{w: "kilowatt" for w in ("kw", "kilowatt", "kilowatts")},
    **{w: "megawatt" for w in ("megawatt", "megawatts")},
    **{w: "milliwatt" for w in ("milliwatt", "milliwatts")},
}
# SI symbols whose case tells them apart: "5 Nm" is a torque and "2 nm" two nautical miles, "40 kN" a force and
# "40 kn" a speed, "5 mW" a laser's power and "5 MW" a plant's; a bare "N" or "W" only after digits
CASED_UNITS: dict[str, str] = {"Nm": "newton * meter", "N": "newton", "kN": "kilonewton", "W": "watt",
                               "kW": "kilowatt", "MW": "megawatt", "mW": "milliwatt", "GW": "gigawatt"}


def unit_name(raw: str) -> str | None:
    """The pint name of a unit as written: its exact case first (CASED_UNITS), then the table in lower case."""
    return CASED_UNITS.get(raw) or UNIT_WORDS.get(raw.lower())

# data sizes in bytes (the lexicon reader's "size" dimension; pint's bits and bytes are not needed)
DATA_SIZES: dict[str, float] = {"b": 1, "byte": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
                                "kib": 1024, "mib": 1024**2, "gib": 1024**3}
BUSINESS_DAY = ("business day", "business days", "working day", "working days", "workday", "workdays")
PERIOD_ADVERBS = {
    "hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "fortnightly": "fortnight",
    "monthly": "month", "quarterly": "3 month", "annually": "year", "yearly": "year",
    "biannually": "6 month", "semiannually": "6 month", "biweekly": "2 week",
}
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "a": 1, "an": 1, "once": 1, "twice": 2, "thrice": 3, "single": 1, "dozen": 12, "several": 3,
    "a couple of": 2, "a few": 3, "half a dozen": 6, "a dozen": 12, "a quarter of an": 0.25,
    "a quarter of a": 0.25, "quarter of an": 0.25, "half an": 0.5, "half a": 0.5, "a half": 0.5,
    "three-quarters of an": 0.75, "three-quarters of a": 0.75, "three quarters of an": 0.75,
    "three quarters of a": 0.75, "a third of an": 1 / 3, "a third of a": 1 / 3, "two-thirds of an": 2 / 3,
    "two-thirds of a": 2 / 3, "two thirds of an": 2 / 3, "two thirds of a": 2 / 3,
    # "two dozen riders" is 24 (not two, nor a dozen)
    **{f"{w} dozen": 12 * n for w, n in (("two", 2), ("three", 3), ("four", 4), ("five", 5), ("six", 6),
                                          ("seven", 7), ("eight", 8), ("nine", 9), ("ten", 10))},
}
_MAX_WORDS = ("at most", "no more than", "not more than", "up to", "maximum of", "a maximum of", "max",
              "under", "below", "less than", "fewer than", "within", "capped at", "no later than",
              "not exceed", "not to exceed", "must not exceed", "no longer than", "not longer than",
              "never more than", "never above", "never over", "never exceeds", "never exceeded",
              "never went above", "never longer than", "at the latest", "or less", "or fewer", "inside",
              "shorter than", "lower than", "smaller than", "until", "not above", "no higher than", "lighter than",
              "slower than", "colder than", "cooler than", "younger than", "shallower than", "narrower than",
              "cheaper than", "thinner than", "or below")
_MIN_WORDS = ("at least", "no less than", "not less than", "no fewer than", "not fewer than", "minimum of",
              "a minimum of", "more than", "over", "above", "exceeding", "exceeds", "exceed", "beyond", "longer than",
              "or more", "or longer", "greater than", "higher than", "larger than", "taller than",
              "never fewer than", "never less than", "never below", "never under", "at minimum", "heavier than",
              "bigger than", "wider than", "faster than", "hotter than", "warmer than", "older than", "deeper than",
              "thicker than", "costlier than", "louder than", "stronger than", "earlier than", "sooner than")


@dataclass(frozen=True)
class Amount:
    """A measured value: ``lo``..``hi`` in base units (equal for a point), its dimension, direction
    (``eq``, ``max`` = "at most", ``min`` = "at least"), whether it is a period, and where it sits."""

    lo: float
    hi: float
    dim: str
    direction: str
    period: bool
    start: int
    end: int
    text: str
    business: bool = False

    def describe(self) -> dict[str, object]:
        return {"value": self.lo if self.lo == self.hi else [self.lo, self.hi], "dimension": self.dim,
                "direction": self.direction, "period": self.period, "business_days": self.business,
                "text": self.text}


@cache
def _unit(name: str) -> tuple[str, float, float]:
    """(dimension, factor to base, offset) of a unit name; money and counts have their own dimension."""
    if name.startswith("money:"):
        return name, 1.0, 0.0
    ureg = _registry()
    q = ureg.Quantity(1.0, name)
    base = q.to_base_units()
    zero = ureg.Quantity(0.0, name).to_base_units().magnitude if name in ("degC", "degF") else 0.0
    # the dimension of the base units, so "lb-ft" and "Nm" name it in one order
    dim = str(ureg.Quantity(1.0, base.units).dimensionality)
    return dim, float(base.magnitude - zero), float(zero)


def dimension_of(unit: str) -> str:
    """The dimension of a unit name (pint's, e.g. ``[time]``, or ``money:EUR``)."""
    return _unit(unit)[0]


def to_base(value: float, unit: str) -> tuple[str, float]:
    """Value in base units (pint), with the dimension name."""
    dim, factor, offset = _unit(unit)
    return dim, float(value * factor + offset)


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_UNIT_KEYS = list(UNIT_WORDS) + list(BUSINESS_DAY)
_AMOUNT_UNIT_KEYS = _UNIT_KEYS + [k for k in CASED_UNITS if k.lower() not in UNIT_WORDS]
_NUM = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_WORDNUM = _alt([w for w in NUMBER_WORDS if " " in w] + [w for w in NUMBER_WORDS if " " not in w])
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
# the fraction after a whole number: "four and three-quarter hours", "an hour and three quarters", "4¾ hours"
_FRACTIONS = {"a half": 0.5, "one half": 0.5, "a quarter": 0.25, "one quarter": 0.25, "three-quarter": 0.75,
              "three-quarters": 0.75, "three quarter": 0.75, "three quarters": 0.75, "a third": 1 / 3,
              "one third": 1 / 3, "two-thirds": 2 / 3, "two thirds": 2 / 3, "½": 0.5, "¼": 0.25, "¾": 0.75}
_FRAC = _alt([f for f in _FRACTIONS if len(f) > 1])
_NUMBER_RE = re.compile(
    rf"(?<![\w.:])(?:(?P<num>{_NUM})(?P<vulgar>[½¼¾])?|(?P<word>(?:{_TENS})[- ](?:{_UNITS})|(?:{_WORDNUM})))"
    rf"(?:\s+and\s+(?P<frac>{_FRAC}))?"
    rf"(?:\s*[- ]?\s*(?P<unit>{_alt(_AMOUNT_UNIT_KEYS)}))(?![\w])"
    rf"(?:\s+and\s+(?P<frac2>{_FRAC})(?![\w-])(?!\s+of\b))?",
    re.I,
)
_CURRENCY_PREFIX_RE = re.compile(rf"(?P<cur>[$€£])\s?(?P<num>{_NUM})", re.I)
_BARE_UNIT_RE = re.compile(rf"(?<![\w])(?:a|an|one|per|each)\s+(?P<unit>{_alt(_UNIT_KEYS)})(?![\w])", re.I)
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
# "once every 90 days" is read whole, so the direction before "once" ("no more than once every 90 days")
# reaches the interval
_EVERY_RE = re.compile(
    rf"\b(?:(?:once|one time)\s+)?(?:every|(?<=\bend of )each|(?<=\bstart of )each|(?<=\bclose of )each)\s+(?P<other>other\s+)?(?:(?P<ord>second|third|fourth|fifth|sixth)\s+(?=(?:{_alt(_UNIT_KEYS)}|"
    r"morning|evening|night|shift|weekday|quarter)\b))?"
    rf"(?:(?P<n>{_NUM}|{_WORDNUM})[- ]?)?(?P<unit>{_alt(_UNIT_KEYS)}"
    r"|morning|evening|night|shift|weekday|quarter)\b(?:\s+and\s+(?P<frac>a half|a quarter|three[- ]quarters))?",
    re.I,
)
_TIMES_RE = re.compile(
    rf"\b(?P<n>once|twice|thrice|(?:{_NUM}|{_WORDNUM})\s+times)\s+(?:a|an|per|each|every)\s+"
    rf"(?P<unit>{_alt(_UNIT_KEYS)}|morning|evening|night)\b",
    re.I,
)
_RANGE_RE = re.compile(
    rf"(?<![\w.:])(?P<a>{_NUM})\s*(?:and|to|-|–)\s*(?P<b>{_NUM})\s*(?P<unit>{_alt(_AMOUNT_UNIT_KEYS)})(?![\w])", re.I)
_TOTAL_RE = re.compile(r"\b\d+\s+(?:of|out of)\s+(?:the\s+|all\s+)?$", re.I)


def names_a_whole(text: str, start: int) -> bool:
    """Is the amount at ``start`` the whole a part is taken from ("25 of the 55 weaners", "5 of the 10 days")?
    It is not what the claim says was done."""
    return bool(_TOTAL_RE.search(text[max(0, start - 20) : start]))


# an age, also "4 years of age": told so, a number of years is no duration ("a week" is no age)
_AGE_RE = re.compile(rf"\b(?:(?P<n>\d{{1,3}}|{_WORDNUM})(?:[- ]years?[- ]olds?|\s+years?\s+of\s+age)|"
                     rf"aged\s+(?P<n2>\d{{1,3}}))\b", re.I)
# an age group told by its bound and a plural number: "under-8s", "over-65s" (no span of seconds)
_AGE_GROUP_RE = re.compile(r"\b(?:under|over)[- ](?P<n>\d{1,3})s\b", re.I)
_LATER = {"morning": (6, 24), "overnight": (6, 16), "day": (24, 24), "tomorrow": (12, 36), "week": (168, 168)}
_LATER_RE = re.compile(r"\b(?:(?:the\s+)?(?:next|following)\s+(?:morning|day|week)|overnight|tomorrow)\b", re.I)
_DAY_N_RE = re.compile(r"\bday\s+(?P<n>\d{1,3})\b", re.I)
# "the day after the result", "until the second day after": whole days after an event, like "the next day"
_DAY_AFTER_RE = re.compile(r"\bthe\s+(?:(?P<ord>second|third|fourth|fifth|sixth)\s+)?day\s+after\b", re.I)
_ADVERB_RE = re.compile(rf"\b(?P<adv>{_alt(list(PERIOD_ADVERBS))})\b", re.I)
# "twice daily", "three times weekly": so many times a period; "three-weekly", "6-monthly": every so many periods
_ADVERB_COUNT_RE = re.compile(
    rf"\b(?:(?P<k>once|twice|thrice|(?:{_NUM}|{_WORDNUM})\s+times)[- ]|(?P<n>{_NUM}|{_WORDNUM})-)"
    rf"(?P<adv>{_alt(list(PERIOD_ADVERBS))})\b", re.I)
_TIMES_SPAN_RE = re.compile(
    rf"\b(?P<k>once|twice|thrice|(?:{_NUM}|{_WORDNUM})\s+times)\s+(?:a|an|per|each|every)\s+"
    rf"(?P<n>{_NUM}|{_WORDNUM})[- ](?P<unit>{_alt(_UNIT_KEYS)})\b", re.I)
_INTERVAL_BEFORE_RE = re.compile(r"\bintervals?\s*[:=]?\s*(?:of\s+)?$", re.I)
_BETWEEN_RE = re.compile(r"\b(?:between|apart|intervals?\s+of|cycles?\s+of|in between)\b", re.I)


def _number(text: str) -> float | None:
    t = text.lower().replace("−", "-").replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        pass
    if t in NUMBER_WORDS:
        return float(NUMBER_WORDS[t])
    parts = re.split(r"[- ]", t)
    if len(parts) == 2 and all(p in NUMBER_WORDS for p in parts):
        a, b = NUMBER_WORDS[parts[0]], NUMBER_WORDS[parts[1]]
        return float(a * b if b in (12, 100) and parts[1] in ("dozen", "hundred") else a + b)
    return None


def direction_info(text: str, start: int, end: int, outer: bool = True) -> tuple[str, bool]:
    """('max' | 'min' | 'eq', whether a negation was already read into it) from the words right before
    (or after) the amount: "at most 3", "never run fewer than 13" (= at least 13), "must not exceed 5".
    Without ``outer`` a negation before the comparative is left out: in "No vessel longer than 72 feet" the
    "no" denies the vessel's passage, while the comparative alone says which vessels are meant."""
    before = re.sub(r"(?<=[a-z])-$", " ", text[max(0, start - 40) : start].lower())  # "under-8s" as "under 8s"
    after = text[end : end + 14].lower()
    best, where = "eq", 10**9
    for words, d in ((_MAX_WORDS, "max"), (_MIN_WORDS, "min")):
        for w in words:  # the longest phrase ending at the amount wins ("never fewer than" over "fewer than")
            # "must not exceed the auditorium's 1,450 seats": a holder between the bound word and its amount
            for m in re.finditer(rf"(?<![\w]){re.escape(w)}(?:\s+(?:a|an|the|of|about))?"
                                 rf"(?:\s+(?:a|an|the)\s+\w+\s+of|\s+\w+\s+of|\s+[\w-]+(?:['’]s|s['’])"
                                 rf"|\s+(?:its|their|his|her|our|your))?\s*$", before):
                if m.start() < where:
                    best, where = d, m.start()
    negated = best != "eq" and bool(re.search(r"\b(?:not|no|never|n't)\b", before[where:]))
    if outer and best != "eq" and not negated and re.search(r"\b(?:never|not|n't|no)\s+(?:\w+\s+){0,2}$", before[:where]):
        best = "min" if best == "max" else "max"  # "never run fewer than 13": at least 13
        negated = True
    if best == "eq":
        if re.match(r"\s*(?:or\s+(?:more|longer|above|over|higher|greater|warmer|hotter|heavier|larger|older)\b|\+)",
                    after):
            return "min", False
        if re.match(r"\s*or\s+(?:less|fewer|shorter|below|under|lower|colder|cooler|lighter|smaller|younger)\b",
                    after):
            return "max", False
    return best, negated


def _direction(text: str, start: int, end: int) -> str:
    return direction_info(text, start, end)[0]


def calendar_to_business(days: float) -> tuple[float, float]:
    """Business days that a span of calendar days can hold: (fewest, most)."""
    weeks_ceil = -(-days // 7)
    return max(days - 2 * weeks_ceil, 0.0), days


def _rate_base(text: str, start: int, unit: str, found: list[Amount]) -> bool:
    """ "13 minutes of ads in an hour": "an hour" after "in"/"per" next to another amount of its
    dimension is the base of a rate, not a value."""
    if unit not in UNIT_WORDS or not re.search(r"\b(?:in|per|each|every|a)\s*$", text[max(0, start - 6) : start].lower()):
        return False
    dim = _unit(UNIT_WORDS[unit])[0]
    return any(a.dim == dim for a in found)


def _business_span(n: float) -> tuple[float, float]:
    """Calendar days that n business days can cover: at least n plus the weekends inside, at most
    that plus one more weekend."""
    full = int(max(n - 1, 0) // 5)
    return n + 2 * full, n + 2 * full + 2


# "in one calendar day", "on any single shift", "during a single night": the window over which a rule counts
_COUNTING_WINDOW_RE = re.compile(r"(?:one|single|a single)\s+(?:(?:calendar|working|business)\s+)?"
                                 r"(?:day|week|month|year|shift|night|session)s?\b", re.I)
_RATE_WINDOW_RE = re.compile(r"(?:a|an|per|each)\s+(?:day|week|fortnight|month|year|shift|night)", re.I)
# a count of a plural thing just before: "two walks", "4 hours", "a dozen feeds"
_COUNTED_BEFORE_RE = re.compile(r"\b(?:\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                                r"dozen|several|few)\s+(?:[a-z-]+\s+)?[a-z-]+s\s+$", re.I)
_COUNTING_PREP_RE = re.compile(r"\b(?:in|on|during|per|over)\s+(?:any\s+|each\s+|a\s+|the\s+same\s+|any\s+one\s+)?$",
                               re.I)


def find_amounts(text: str) -> list[Amount]:
    """Every amount in ``text``: numbers with units, quantity words, periods, currencies."""
    out: list[Amount] = []
    taken: list[tuple[int, int]] = []

    def add(lo: float, hi: float, dim: str, period: bool, s: int, e: int, business: bool = False,
            frequency: bool = False) -> None:
        if any(s < te and ts < e for ts, te in taken):
            return
        taken.append((s, e))
        if names_a_whole(text, s):
            return  # "5 of the 10 days": the 10 is the whole, not what is claimed
        if _COUNTING_WINDOW_RE.match(text[s:e]) and _COUNTING_PREP_RE.search(text[max(0, s - 24) : s]):
            return  # "no more than two runs in one calendar day": the window a count is taken over, no amount
        if _RATE_WINDOW_RE.fullmatch(text[s:e]) and _COUNTED_BEFORE_RE.search(text[max(0, s - 40) : s]):
            return  # "two walks a day", "4 hours a day": the window of a rate, no length of time
        d = _direction(text, s, e)
        if frequency and d != "eq":  # "at least every 7 days": at least as often = an interval of at most
            d = "max" if d == "min" else "min"
        out.append(Amount(lo, hi, dim, d, period, s, e, text[s:e], business))

    def unit_amount(n: float, unit: str, s: int, e: int, period: bool, frequency: bool = False) -> None:
        u = unit.lower()
        if u in BUSINESS_DAY:  # kept in business days (as seconds of that many days); see business_range
            _, day = to_base(1.0, "day")
            add(n * day, n * day, "[time]", period, s, e, business=True, frequency=frequency)
            return
        name = unit_name(unit)
        if name is None:
            return  # "5 w": a letter not of the unit's case
        dim, v = to_base(n, name)
        add(v, v, dim, period, s, e, frequency=frequency)

    for m in _RANGE_RE.finditer(text):  # "between 40 and 55 %": the first number takes the second's unit
        a, b = _number(m.group("a")), _number(m.group("b"))
        u = m.group("unit").lower()
        name = unit_name(m.group("unit"))
        if a is None or b is None or u in BUSINESS_DAY or name is None:
            continue
        (dim, va), (_, vb) = to_base(a, name), to_base(b, name)
        add(va, va, dim, False, m.start("a"), m.end("a"))
        add(vb, vb, dim, False, m.start("b"), m.end())
    for m in _AGE_RE.finditer(text):
        n = _number(m.group("n") or m.group("n2"))
        if n is not None:
            add(n, n, "age", False, m.start(), m.end())
    for m in _AGE_GROUP_RE.finditer(text):
        add(float(m.group("n")), float(m.group("n")), "age", False, m.start("n"), m.end())
    for m in _EVERY_RE.finditer(text):
        u = m.group("unit").lower()
        n = _number(m.group("n")) if m.group("n") else 1.0
        if n is None:
            continue
        if m.group("other"):
            n *= 2
        if m.group("ord"):  # "every second day": every 2 days, not every second
            n *= _ORDINALS[m.group("ord").lower()]
        if m.group("frac"):  # "every hour and a quarter"
            n += _FRACTIONS[m.group("frac").lower()]
        if u in ("morning", "evening", "night", "weekday"):
            u = "day"
        if u == "shift":
            n, u = 8 * n, "hour"
        if u == "quarter":
            n, u = 3 * n, "month"
        unit_amount(n, u, m.start(), m.end(), True, frequency=True)
    for m in _TIMES_SPAN_RE.finditer(text):  # "once per 8-hour shift"
        k = _number(m.group("k").lower().replace(" times", ""))
        n = _number(m.group("n"))
        u = m.group("unit").lower()
        if k and n and u in UNIT_WORDS:
            dim, v = to_base(n, UNIT_WORDS[u])
            add(v / k, v / k, dim, True, m.start(), m.end(), frequency=True)
    for m in _TIMES_RE.finditer(text):
        raw = m.group("n").lower().replace(" times", "")
        k = _number(raw)
        if not k:
            continue
        dim, v = to_base(1.0, UNIT_WORDS.get(m.group("unit").lower(), "day"))
        add(v / k, v / k, dim, True, m.start(), m.end(), frequency=True)
    for m in _ADVERB_COUNT_RE.finditer(text):
        n_s, _, u = PERIOD_ADVERBS[m.group("adv").lower()].rpartition(" ")
        k = _number(m.group("k").lower().replace(" times", "")) if m.group("k") else None
        n = _number(m.group("n")) if m.group("n") else 1.0
        if not k and not m.group("n") or n is None:
            continue
        dim, v = to_base(float(n_s or 1) * n, u)
        add(v / (k or 1.0), v / (k or 1.0), dim, True, m.start(), m.end(), frequency=True)
    for m in _ADVERB_RE.finditer(text):
        n_s, _, u = PERIOD_ADVERBS[m.group("adv").lower()].rpartition(" ")
        dim, v = to_base(float(n_s or 1), u)
        add(v, v, dim, True, m.start(), m.end(), frequency=True)
    periodic_ctx = bool(_BETWEEN_RE.search(text))
    for m in _NUMBER_RE.finditer(text):
        raw = m.group("num") or m.group("word")
        n = _number(raw)
        if n is None:
            continue
        for frac in (m.group("vulgar"), m.group("frac"), m.group("frac2")):
            if frac:
                n += _FRACTIONS[frac.lower()]
        u = m.group("unit").lower()
        if (raw.lower() in ("a", "an", "one") and _rate_base(text, m.start(), u, out)):
            continue
        if u == "second" and raw.lower() in ("a", "the") and re.match(r"\s+[a-z]", text[m.end() :]) and not re.match(
                r"\s+(?:of|or|and|delay|later|pause|wait)\b", text[m.end() :]):
            continue  # "a second handler": the ordinal, not a duration
        if u in ("a", "an") or (u in ("m", "t", "h", "s", "g", "in.", "n", "w") and m.group("word")):
            continue
        if m.group("word") and m.end("word") == m.start("unit"):
            continue  # "ALB", "Ahz": a word glued to a unit's letters is no amount
        if u == "in." and not m.group("num"):
            continue
        is_time = UNIT_WORDS.get(u) in ("second", "minute", "hour", "day", "week", "month", "year",
                                        "fortnight") or u in BUSINESS_DAY
        # "sample interval 15 min": the time right after "interval" is the one between two occurrences
        named_interval = bool(_INTERVAL_BEFORE_RE.search(text[max(0, m.start() - 16) : m.start()]))
        unit_amount(n, m.group("unit"), m.start(), m.end(), (periodic_ctx or named_interval) and is_time)
    for share, s, e, noun in shares.find_shares(text):  # "a fifth of the weight": 20 % of it
        if noun not in UNIT_WORDS:  # "a quarter of an hour" is a time, read by the unit readings
            add(share, share, "dimensionless", False, s, e)
    for m in _CURRENCY_PREFIX_RE.finditer(text):
        n = _number(m.group("num"))
        if n is not None:
            cur = {"$": "money:USD", "€": "money:EUR", "£": "money:GBP"}[m.group("cur")]
            add(n, n, cur, False, m.start(), m.end())
    for m in _BARE_UNIT_RE.finditer(text):  # "a week", "per hour", "a fortnight"
        u = m.group("unit").lower()
        if _rate_base(text, m.start(), u, out):
            continue
        if u == "second" and re.match(r"\s+[a-z]", text[m.end() :]) and not re.match(
                r"\s+(?:of|or|and|delay|later|pause|wait)\b", text[m.end() :]):
            continue  # "a second handler": the ordinal
        if text[max(0, m.start() - 12) : m.start()].lower().rstrip().endswith(("once", "twice", "times")):
            continue
        if m.group(0).lower().startswith(("per", "each")):
            continue
        unit_amount(1.0, u, m.start(), m.end(), False)
    for m in _LATER_RE.finditer(text):  # "until the next morning": at least several hours later
        lo, hi = _LATER[m.group(0).lower().split()[-1]]
        add(lo * 3600.0, hi * 3600.0, "[time]", False, m.start(), m.end())
    for m in _DAY_AFTER_RE.finditer(text):
        n = _ORDINALS[m.group("ord").lower()] if m.group("ord") else 1
        add(n * 86400.0, n * 86400.0, "[time]", False, m.start(), m.end())
    for m in _DAY_N_RE.finditer(text):  # "on day 20 after service"
        _, v = to_base(float(m.group("n")), "day")
        add(v, v, "[time]", False, m.start(), m.end())
    out.sort(key=lambda a: a.start)
    return _join_mixed_units(text, out)


_MIXED_JOIN_RE = re.compile(r"\s+(?:and\s+)?$|,?\s+and\s+$", re.I)


def _unit_size(amount: Amount) -> float | None:
    """The base value of one of the amount's own unit ("2 hours" -> 3600), or None when it is no plain
    number with a unit."""
    m = _NUMBER_RE.fullmatch(amount.text)
    unit = m.group("unit").lower() if m is not None else ""
    if unit not in UNIT_WORDS or unit in BUSINESS_DAY or UNIT_WORDS[unit] in ("degC", "degF"):
        return None
    return to_base(1.0, UNIT_WORDS[unit])[1]


# "3 ft 2 in above the deck": inches after feet, written "in" like the preposition (not "in the", "in 2024")
_BARE_INCHES_RE = re.compile(r"\s+(?:and\s+)?(?P<n>\d{1,2}(?:\.\d+)?)\s*in\b\.?(?!\s*(?:the|a|an|this|that|these|"
                             r"those|its|their|his|her|our|my|your|each|every)\b|\s*\d)", re.I)


def _with_bare_inches(text: str, a: Amount) -> Amount:
    """A length in feet followed by less than twelve bare "in" is one length ("3 ft 2 in" = 38 inches)."""
    m = _NUMBER_RE.fullmatch(a.text)
    if m is None or a.lo != a.hi or UNIT_WORDS.get(m.group("unit").lower()) != "foot":
        return a
    n = _BARE_INCHES_RE.match(text, a.end)
    if n is None or not float(n.group("n")) < 12:
        return a
    inches = to_base(float(n.group("n")), "inch")[1]
    end = n.start() + len(n.group(0).rstrip("."))
    return Amount(a.lo + inches, a.hi + inches, a.dim, _direction(text, a.start, end), False, a.start, end,
                  text[a.start : end], a.business)


def _join_mixed_units(text: str, found: list[Amount]) -> list[Amount]:
    """ "one hour and fifty minutes", "2 h 15 min", "5 ft 10 in": a whole number of a larger unit followed by
    less than one of it in a smaller unit of the same dimension is one amount, not two (read apart, "one hour"
    would be judged alone and the fifty minutes lost)."""
    out: list[Amount] = []
    for a in (_with_bare_inches(text, a) for a in found):
        prev = out[-1] if out else None
        if prev is not None and a.start < prev.end:
            continue  # the inches a length in feet took in ("4 ft 7 in.")
        if prev is not None and not prev.period and not a.period and prev.dim == a.dim and prev.lo == prev.hi \
                and a.lo == a.hi and _MIXED_JOIN_RE.match(text[prev.end : a.start]) and "\n" not in text[prev.end : a.start]:
            big, small = _unit_size(prev), _unit_size(a)
            if big is not None and small is not None and small < big and 0 < a.lo < big:
                d = _direction(text, prev.start, a.end)
                out[-1] = Amount(prev.lo + a.lo, prev.hi + a.hi, prev.dim, d, False, prev.start, a.end,
                                 text[prev.start : a.end], prev.business)
                continue
        out.append(a)
    return out


# ---- clock times, dates, weekdays ---------------------------------------------------------------

_CLOCK_RE = re.compile(
    r"(?<![\w:.])(?:(?P<h>[01]?\d|2[0-4])[:.](?P<m>[0-5]\d)\s*(?P<ap>a\.?m\.?|p\.?m\.?)?"
    r"|(?P<h2>1[0-2]|0?[1-9])\s*(?P<ap2>a\.?m\.?|p\.?m\.?)"
    r"|(?P<word>midnight|noon|midday))(?![\w])",
    re.I,
)


@dataclass(frozen=True)
class Clock:
    """A time of day in minutes after midnight, with the word that introduces it and where it sits."""

    minutes: int
    role: str  # at, from, until, before, after
    start: int
    end: int


_ROLE_WORDS = {
    "from": "from", "after": "after", "since": "from", "starting": "from", "opens": "from",
    "reopens": "from", "starts": "from", "begins": "from",
    "until": "until", "till": "until", "to": "until", "through": "until", "by": "until",
    "before": "before", "closes": "until", "ends": "until", "ended": "until", "closed": "until",
    "stops": "until", "finishes": "until", "ran": "until", "runs": "until",
}


_HOUR_WORDS = {w: i + 1 for i, w in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                                "ten", "eleven", "twelve"))}
# times told in words: "half past ten", "a quarter to six", "seven o'clock", "half past seven in the evening"
_WORD_CLOCK_RE = re.compile(
    rf"(?<![\w])(?:(?P<part>half|(?:a\s+)?quarter)\s+(?P<rel>past|to)\s+(?P<h>{_alt(list(_HOUR_WORDS))}|1[0-2]|0?[1-9])"
    rf"|(?P<h2>{_alt(list(_HOUR_WORDS))}|1[0-2]|0?[1-9])\s+o['’]clock)(?![\w])"
    r"(?:\s*(?P<day>in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight|p\.?m\.?|a\.?m\.?)(?![\w]))?",
    re.I,
)


def _word_clocks(text: str) -> list[tuple[int, int, int]]:
    """(minutes after midnight, start, end) of the times of day told in words."""
    out = []
    for m in _WORD_CLOCK_RE.finditer(text):
        h_s = (m.group("h") or m.group("h2")).lower()
        h = _HOUR_WORDS.get(h_s) or int(h_s)
        minutes = h * 60
        if m.group("part"):
            delta = 30 if m.group("part").lower() == "half" else 15
            minutes += delta if m.group("rel").lower() == "past" else -delta
        day = (m.group("day") or "").lower()
        if ("afternoon" in day or "evening" in day or "night" in day or day.startswith("p")) and h < 12:
            minutes += 12 * 60
        elif ("morning" in day or day.startswith("a")) and h == 12:
            minutes -= 12 * 60
        out.append((minutes % (24 * 60), m.start(), m.end()))
    return out


def find_clock_times(text: str) -> list[Clock]:
    """Times of day ("15:00", "3 pm", "8.30 pm", "midnight", "half past ten") with the role word before them."""
    out = []
    found = [(m, None) for m in _CLOCK_RE.finditer(text)] + [(None, w) for w in _word_clocks(text)]
    for m, told in sorted(found, key=lambda x: x[0].start() if x[0] is not None else x[1][1]):
        start, end = (m.start(), m.end()) if m is not None else told[1:]
        if any(c.start < end and start < c.end for c in out):
            continue  # "half past 10 pm": one time
        if told is not None:
            minutes = told[0]
            out.append(Clock(minutes, _clock_role(text, start), start, end))
            continue
        assert m is not None
        if m.group("word"):
            w = m.group("word").lower()
            minutes = 24 * 60 if w == "midnight" else 12 * 60
        else:
            h = int(m.group("h") or m.group("h2"))
            mi = int(m.group("m") or 0)
            ap = (m.group("ap") or m.group("ap2") or "").lower().replace(".", "")
            if m.group("h") and not ap and m.group(0)[len(m.group("h"))] == "." and h > 24:
                continue
            if ap == "pm" and h < 12:
                h += 12
            if ap == "am" and h == 12:
                h = 0
            minutes = h * 60 + mi
        out.append(Clock(minutes, _clock_role(text, m.start()), m.start(), m.end()))
    return out


# the second time of a range told with a dash ("the 14:00-22:00 shift", "9 am – 5 pm"): the range's end
_RANGE_END_RE = re.compile(r"\d(?:\s*[ap]\.?m\.?)?\s*[-–—]\s*$", re.I)


def _clock_role(text: str, start: int) -> str:
    """The role word among the three words before a time of day ("from", "until", "before", ...), else "at";
    the second time of a dashed range ("14:00-22:00") is its end: "until"."""
    if _RANGE_END_RE.search(text[max(0, start - 12) : start]) and _clock_before_dash(text, start):
        return "until"
    before = re.findall(r"[a-z]+", text[max(0, start - 30) : start].lower())
    for w in reversed(before[-3:]):
        if w in _ROLE_WORDS:
            return _ROLE_WORDS[w]
    return "at"


def _clock_before_dash(text: str, start: int) -> bool:
    """Does a time of day end right before the dash that precedes ``start`` ("14:00-" in "14:00-22:00")?"""
    head = text[max(0, start - 12) : start].rstrip().rstrip("-–—").rstrip()
    return any(m.end() == len(head) for m in _CLOCK_RE.finditer(head))


MONTHS = {m: i + 1 for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"))}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
WEEKDAYS = {d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                                        "sunday"))}
_MONTH_ALT = _alt(list(MONTHS))
_DATE_RE = re.compile(
    rf"(?<![\w])(?:(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH_ALT})\.?(?:,?\s+(?P<y1>\d{{4}}))?"
    rf"|(?P<m2>{_MONTH_ALT})\.?\s+(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(?P<y2>\d{{4}}))?"
    rf"|(?:(?P<q>early|mid|late)-?\s?)?(?P<m3>{_MONTH_ALT})(?:\s+(?P<y3>\d{{4}}))?"
    rf"|(?P<iso>\d{{4}}-\d{{2}}-\d{{2}}))(?![\w])",
    re.I,
)
_YEAR_RE = re.compile(r"\b(?:in|by|until|till|during|before|after|from|since|for)\s+(?P<y>(?:19|20)\d\d)\b(?![-/])")
_WEEKDAY_RE = re.compile(rf"(?<![\w])(?P<next>following\s+|next\s+)?(?P<wd>{_alt(list(WEEKDAYS))})s?(?![\w])", re.I)


@dataclass(frozen=True)
class DateMention:
    """A calendar date (or a month range) as ordinal days; ``year_known`` when the text gave one."""

    first: int  # proleptic ordinal of the first day it can mean
    last: int   # ... and of the last
    year_known: bool
    start: int
    end: int


def find_dates(text: str, default_year: int = 2000) -> list[DateMention]:
    """Dates: "3 November 2026", "April 12", "mid-August", "October 2026", "2026-03-06".

    Normalised with dateutil against a fixed default (never today's date), so the result depends
    only on the text."""
    import calendar
    import datetime as dt

    from dateutil import parser as dparser

    out = []
    for m in _DATE_RE.finditer(text):
        try:
            if m.group("iso"):
                d = dparser.isoparse(m.group("iso")).date()
                out.append(DateMention(d.toordinal(), d.toordinal(), True, m.start(), m.end()))
                continue
            mon_s = (m.group("m1") or m.group("m2") or m.group("m3")).lower().rstrip(".")
            if mon_s == "may" and m.group("m3") and not (m.group("y3") or m.group("q")) and not (
                    re.search(r"\b(?:from|in|since|until|till|through|to|of|during|and)\s+$", text[: m.start()], re.I)
                    or re.match(r"\s*(?:through|to|until|till|and|-|–)\s", text[m.end() :], re.I)):
                continue  # the modal verb, not the month
            if mon_s not in MONTHS:
                continue
            y_s = m.group("y1") or m.group("y2") or m.group("y3")
            year = int(y_s) if y_s else default_year
            day_s = m.group("d1") or m.group("d2")
            if day_s:
                d = dparser.parse(f"{int(day_s)} {mon_s} {year}", default=dt.datetime(year, 1, 1)).date()
                out.append(DateMention(d.toordinal(), d.toordinal(), bool(y_s), m.start(), m.end()))
            else:
                mon = MONTHS[mon_s]
                ndays = calendar.monthrange(year, mon)[1]
                first, last = 1, ndays
                q = (m.group("q") or "").lower().strip("-")
                if q == "early":
                    last = 10
                elif q == "mid":
                    first, last = 11, 20
                elif q == "late":
                    first = 21
                out.append(DateMention(dt.date(year, mon, first).toordinal(), dt.date(year, mon, last).toordinal(),
                                       bool(y_s), m.start(), m.end()))
        except (ValueError, OverflowError):
            continue
    for m in _YEAR_RE.finditer(text):  # "tested in 2027": the whole year
        if any(d.start <= m.start() < d.end for d in out):
            continue
        y = int(m.group("y"))
        out.append(DateMention(dt.date(y, 1, 1).toordinal(), dt.date(y, 12, 31).toordinal(), True,
                               m.start("y"), m.end("y")))
    out.sort(key=lambda d: d.start)
    return out


def within_dates(dates: Sequence[DateMention], token: Any) -> bool:
    """Is a parsed word part of one of the dates ("28" and "May" of "the 28 May tour")?"""
    return any(d.start <= token.idx < d.end for d in dates)


def find_weekdays(text: str) -> list[tuple[int, bool, int, int]]:
    """(weekday 0=Monday, 'following/next'?, start, end) for weekday names."""
    return [(WEEKDAYS[m.group("wd").lower()], bool(m.group("next")), m.start(), m.end())
            for m in _WEEKDAY_RE.finditer(text)]


def business_days_between(first: int, last: int) -> int:
    """Business days after ``first`` up to and including ``last`` (ordinals; Monday-Friday)."""
    import datetime as dt

    if last <= first:
        return -business_days_between(last, first) if last < first else 0
    n = 0
    for o in range(first + 1, last + 1):
        if dt.date.fromordinal(o).weekday() < 5:
            n += 1
    return n
