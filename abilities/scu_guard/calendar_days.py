"""Days the calendar names without a day number: "Christmas Eve", "Good Friday", "the first Tuesday of July",
"the last working day of September", "the end of February".

Why: a rule that bounds when its event may happen ("between 1 May and 30 June") or how far apart two events
are is read from dates, and English often gives a date by the calendar's own names. Each expression becomes
the same ``DateMention`` the bare-date reader makes, so every date, window and gap reading uses it. A day
whose place moves with the year (Easter, a weekday of a month, a working day) is one day only when the year
is known (written with it, or the one year the claim and its chunks give); otherwise it is the range of days
it can fall on in any year, and the kindest reading of a range decides, as it does for "mid-March".
Pure functions over the text.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from dateutil.easter import easter

from abilities.scu_guard import measure

# days of the year known by a name of their own, on a fixed date ("on New Year's Eve" is 31 December); a day
# whose date differs by country or church ("Independence Day", "Epiphany", "May Day") is not among them
FIXED_DAYS = {"new year's eve": 1231, "new year's day": 101, "christmas eve": 1224, "christmas day": 1225,
              "boxing day": 1226, "halloween": 1031, "valentine's day": 214, "st patrick's day": 317,
              "guy fawkes night": 1105, "bonfire night": 1105, "april fools' day": 401, "april fool's day": 401,
              "april fools day": 401, "bastille day": 714, "walpurgis night": 430, "burns night": 125,
              "st andrew's day": 1130, "st george's day": 423, "st david's day": 301, "hogmanay": 1231}
FIXED_DAY_RE = re.compile(r"\b(?:new year['’]s (?:eve|day)|christmas (?:eve|day)|boxing day|halloween|"
                          r"valentine['’]s day|st\.? (?:patrick|andrew|george|david)['’]s day|guy fawkes night|"
                          r"bonfire night|april fool(?:s['’]?|['’]s) day|bastille day|walpurgis night|burns night|"
                          r"hogmanay)\b(?!-)", re.I)


def fixed_day(name: str) -> int:
    """The month * 100 + day of a fixed day's name as ``FIXED_DAY_RE`` finds it, however it is spelled."""
    return FIXED_DAYS[re.sub(r"\s+", " ", name.lower().replace("’", "'").replace("st. ", "st "))]


# days counted from Easter Sunday: (first, last) offsets; "Easter" alone and "the Easter weekend" run from Good
# Friday to Easter Monday, the widest of their readings
_EASTER = {"good friday": (-2, -2), "easter saturday": (-1, -1), "easter sunday": (0, 0), "easter day": (0, 0),
           "easter monday": (1, 1), "easter weekend": (-2, 1), "easter": (-2, 1), "shrove tuesday": (-47, -47),
           "ash wednesday": (-46, -46), "palm sunday": (-7, -7), "maundy thursday": (-3, -3),
           "ascension day": (39, 39), "whit sunday": (49, 49), "whitsunday": (49, 49), "pentecost": (49, 49),
           "whit monday": (50, 50), "whitmonday": (50, 50)}
# "Easter" alone dates only after a preposition of time ("over Easter", "at Easter"): "the Easter rota" names one
_EASTER_RE = re.compile(r"\b(?:good friday|easter\s+(?:saturday|sunday|day|monday|weekend)|shrove tuesday|"
                        r"ash wednesday|palm sunday|maundy thursday|ascension day|whit\s?(?:sunday|monday)|pentecost|"
                        r"(?:(?<=\bat\s)|(?<=\bby\s)|"
                        r"(?<=\bfor\s)|(?<=\bover\s)|(?<=\bafter\s)|(?<=\buntil\s)|(?<=\bsince\s)|(?<=\bbefore\s)|"
                        r"(?<=\bduring\s))easter)\b(?!-)", re.I)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "last": -1, "final": -1}
_MONTH_ALT = "|".join(sorted(measure.MONTHS, key=len, reverse=True))
_ORD_ALT = "|".join(_ORDINALS)
_WD_ALT = "|".join(measure.WEEKDAYS)
# "the first Tuesday of July", "the last Friday in March 2026", "the first working day of September"
_NTH_RE = re.compile(rf"\b(?:the\s+)?(?P<ord>{_ORD_ALT})\s+(?:(?P<wd>{_WD_ALT})|(?P<work>working|business)\s+day|"
                     rf"(?P<week>weekday))\s+(?:of|in)\s+(?P<mon>{_MONTH_ALT})\b\.?", re.I)
# "the end of February", "the beginning of May": the month's last or first ten days
_PART_RE = re.compile(rf"\b(?:the\s+)?(?P<part>end|close|start|beginning)\s+of\s+(?P<mon>{_MONTH_ALT})\b\.?", re.I)
_YEAR_AFTER_RE = re.compile(r"^,?\s+(?P<y>(?:19|20)\d\d)\b(?![-/])")
# a year written as a word of its own ("the 2025 fire drill", "Course calendar 2024"), not part of a code
_BARE_YEAR_RE = re.compile(r"(?<![\w/.-])(?:19|20)\d\d(?![\w/-])")
_ANY_YEARS = range(1950, 2100)


def context_year(texts: Iterable[str]) -> int | None:
    """The one year the texts give, by a date with its year or a year on its own; None when none or several."""
    years: set[int] = set()
    for t in texts:
        years |= _years_in(t)
    return years.pop() if len(years) == 1 else None


@lru_cache(maxsize=4096)
def _years_in(text: str) -> frozenset[int]:
    """The years one text gives (a chunk is read for every claim that cites it)."""
    years = {dt.date.fromordinal(d.first).year for d in measure.find_dates(text) if d.year_known}
    amounts = measure.find_amounts(text)  # "2000 litres" is no year
    years |= {int(m.group(0)) for m in _BARE_YEAR_RE.finditer(text)
              if not any(a.start <= m.start() < a.end for a in amounts)}
    return frozenset(years)


def named_dates(text: str, year: int | None, default_year: int = 2000) -> list[measure.DateMention]:
    """The calendar's named days in ``text`` as dates (see the module docstring). ``year`` is the year the
    claim and its chunks give (None when unknown); a year written right after the expression wins and is
    known. A date whose year is not written is placed in ``default_year``, as bare dates are."""
    out: list[measure.DateMention] = []

    def add(first: dt.date, last: dt.date, known: bool, start: int, end: int) -> None:
        if not known:  # placed in the year bare dates are placed in, so gaps between them are right
            first, last = _in_year(first, default_year), _in_year(last, default_year)
        out.append(measure.DateMention(first.toordinal(), last.toordinal(), known, start, end))

    def year_of(end: int) -> tuple[int | None, int, bool]:
        """(the year the day is in, where its telling ends, whether the text wrote the year)."""
        m = _YEAR_AFTER_RE.match(text[end:])
        if m:
            return int(m.group("y")), end + m.end(), True
        return year, end, False

    for m in FIXED_DAY_RE.finditer(text):
        y, end, written = year_of(m.end())
        md = fixed_day(m.group(0))
        day = dt.date(y or default_year, md // 100, md % 100)
        add(day, day, written, m.start(), end)
    for m in _EASTER_RE.finditer(text):
        y, end, written = year_of(m.end())
        a, b = _EASTER[re.sub(r"\s+", " ", m.group(0).lower())]
        if y is not None:
            sunday = easter(y)
            add(sunday + dt.timedelta(a), sunday + dt.timedelta(b), written, m.start(), end)
            continue
        base = dt.date(default_year, 1, 1)  # Easter Sunday falls from 22 March to 25 April
        add(base.replace(month=3, day=22) + dt.timedelta(a), base.replace(month=4, day=25) + dt.timedelta(b),
            False, m.start(), end)
    for m in _NTH_RE.finditer(text):
        y, end, written = year_of(m.end())
        mon = measure.MONTHS[m.group("mon").lower().rstrip(".")]
        n = _ORDINALS[m.group("ord").lower()]
        test = _weekday_test(measure.WEEKDAYS[m.group("wd").lower()] if m.group("wd") else None)
        days = sorted({_nth(yy, mon, n, test) for yy in ([y] if y is not None else _ANY_YEARS)},
                      key=lambda d: (d.month, d.day))
        first, last = days[0], days[-1]
        yy = y or default_year
        add(_in_year(first, yy), _in_year(last, yy), written, m.start(), end)
    for m in _PART_RE.finditer(text):
        y, end, written = year_of(m.end())
        mon = measure.MONTHS[m.group("mon").lower().rstrip(".")]
        yy = y or default_year
        ndays = calendar.monthrange(yy, mon)[1]
        lo, hi = (21, ndays) if m.group("part").lower() in ("end", "close") else (1, 10)
        add(dt.date(yy, mon, lo), dt.date(yy, mon, hi), written, m.start(), end)
    return out


def with_named_dates(text: str, dates: list[measure.DateMention], year: int | None,
                     default_year: int = 2000) -> list[measure.DateMention]:
    """``dates`` with the named days added, each replacing the bare-date readings inside its own words (the
    month of "the first Tuesday of July" is no date of its own); in text order."""
    named = named_dates(text, year, default_year)
    kept = [d for d in dates if not any(n.start <= d.start < n.end for n in named)]
    return sorted(kept + named, key=lambda d: d.start)


def _weekday_test(weekday: int | None) -> Callable[[dt.date], bool]:
    """A test for the days counted: one weekday, else Monday to Friday (a working day)."""
    if weekday is None:
        return lambda d: d.weekday() < 5
    return lambda d: d.weekday() == weekday


def _nth(year: int, month: int, n: int, test: Callable[[dt.date], bool]) -> dt.date:
    """The n-th day of the month passing ``test`` (n = -1: the last)."""
    ndays = calendar.monthrange(year, month)[1]
    days = [dt.date(year, month, k) for k in range(1, ndays + 1)]
    hits = [d for d in days if test(d)]
    return hits[n - 1] if n > 0 else hits[-1]


def _in_year(d: dt.date, year: int) -> dt.date:
    """The same month and day in ``year`` (29 February falls back to the 28th)."""
    try:
        return d.replace(year=year)
    except ValueError:
        return d.replace(year=year, day=28)
