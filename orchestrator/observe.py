"""Prometheus helpers the metrics hooks call: counters fed from totals the service already keeps,
the action/queue/delivery observations, and the metrics abilities declare (sent over the worker pipe).

Label sets stay bounded: ability names (registered), statuses, tenants (from the tokens file); never
an action id, topic or anything a client chooses.
"""

from __future__ import annotations

import asyncio
import re
import time
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

log = structlog.get_logger("metis.metrics")

#: Seconds: from a millisecond up to the longest wall budget (actions), and sub-millisecond up for
#: the hot paths (appends, delivery).
ACTION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
WAIT_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
_METRIC_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")
KINDS = ("counter", "gauge", "histogram")


class TotalCounter(Collector):
    """A counter whose value is a total kept elsewhere (a log's commit count...): set at scrape time,
    exposed with the counter type (``<name>_total``), which ``Counter`` cannot do without double
    counting."""

    def __init__(self, name: str, documentation: str, registry: CollectorRegistry) -> None:
        self.name = name
        self.documentation = documentation
        self.value = 0.0
        registry.register(self)

    def set(self, value: float) -> None:
        self.value = float(value)

    def collect(self) -> Iterable[CounterMetricFamily]:
        yield CounterMetricFamily(self.name, self.documentation, value=self.value)

    def describe(self) -> Iterable[CounterMetricFamily]:
        return self.collect()


def _seconds_between(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    try:
        return (datetime.fromisoformat(end.replace("Z", "+00:00"))
                - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        return None


_CHILDREN: dict[tuple[Any, tuple[str, ...]], Any] = {}


def child(metric: Any, *labels: str) -> Any:
    """``metric.labels(*labels)``, looked up once: ``labels()`` validates and locks on every call
    (more than the whole observation costs). Label sets are bounded (see above)."""
    key = (metric, labels)
    found = _CHILDREN.get(key)
    if found is None:
        found = _CHILDREN[key] = metric.labels(*labels)
    return found


def observe_action(metrics: Any, a: Any) -> None:
    """At an action's end: its run time by ability and outcome, its wait for a slot by tenant."""
    if a.started_at is None:  # ended before it ever ran (cancelled while queued)
        return
    child(metrics.action_seconds, a.ability, str(a.status)).observe(float(a.usage.get("wall_s") or 0.0))
    wait = _seconds_between(a.created_at, a.started_at)
    if wait is not None and wait >= 0:
        child(metrics.queue_wait, a.tenant).observe(wait)


class LoopHistogram(Collector):
    """A histogram observed on the event loop only, exposed like prometheus_client's ``Histogram``.
    Why: it is observed once per subscriber per record on the SSE fan-out (1,000 times per event
    with 1,000 subscribers), where ``Histogram.observe`` (two locks and a walk over the bounds,
    ~2 us) was a tenth of the fan-out's CPU; here it is a bisect and two additions. Scrapes run on
    the same loop (the ``/metrics`` endpoint), so nothing is read half-updated."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float], registry: CollectorRegistry) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = [float(b) for b in buckets if b != float("inf")]
        self.counts = [0] * (len(self.bounds) + 1)  # the last one: above every bound (+Inf)
        self.sum = 0.0
        registry.register(self)

    def observe(self, amount: float, count: int = 1) -> None:
        """``count`` observations of ``amount`` (the fan-out observes its sends in blocks)."""
        self.counts[bisect_left(self.bounds, amount)] += count
        self.sum += amount * count

    def collect(self) -> Iterable[HistogramMetricFamily]:
        cumulative, total = [], 0
        for bound, n in zip([*self.bounds, float("inf")], self.counts, strict=True):
            total += n
            cumulative.append((floatToGoString(bound), total))
        yield HistogramMetricFamily(self.name, self.documentation, buckets=cumulative, sum_value=self.sum)

    def describe(self) -> Iterable[HistogramMetricFamily]:
        yield HistogramMetricFamily(self.name, self.documentation)


class DeliveryClock:
    """SSE delivery lag: from a record's commit (the log's listener call, on the loop) to the end of
    the send that carried it to a client. Only records committed while the client was connected
    count (a resume's backlog is history, not lag). The commit times of at least the last ``size``
    records are kept, one entry per commit (its first and last seq), not one per record: a burst's
    commits hold hundreds of records, and each cost a dictionary insert and eviction."""

    def __init__(self, histogram: Histogram | LoopHistogram, size: int = 65536) -> None:
        self.histogram = histogram
        self.size = size
        self._firsts: list[int] = []  # per commit, oldest first: its first seq, last seq, time
        self._lasts: list[int] = []
        self._times: list[float] = []
        self._tally: SendTally | None = None

    def tally(self) -> SendTally:
        """The counter of direct sends (from the commit callback) that every stream of this clock's
        service shares: see ``SendTally``."""
        if self._tally is None:
            self._tally = SendTally(self.sent_many)
        return self._tally

    def on_commit(self, records: list[Any]) -> None:
        if not records:
            return
        last = records[-1].seq
        self._firsts.append(records[0].seq)
        self._lasts.append(last)
        self._times.append(time.monotonic())
        if self._lasts[0] <= last - 2 * self.size:  # forget in large steps (amortised, not per commit)
            cut = bisect_left(self._lasts, last - self.size)
            del self._firsts[:cut], self._lasts[:cut], self._times[:cut]

    def committed_at(self, seq: int) -> float | None:
        """When the commit holding ``seq`` was handed to the listeners (None: not seen, or forgotten)."""
        i = bisect_left(self._lasts, seq)
        if i < len(self._lasts) and self._firsts[i] <= seq:
            return self._times[i]
        return None

    def watch(self) -> Callable[[list[Any]], None]:
        """For one stream: call the result with each batch once it is sent."""
        opened = time.monotonic()
        committed_at, observe, clock = self.committed_at, self.histogram.observe, time.monotonic

        def delivered(batch: list[Any]) -> None:
            t = committed_at(batch[-1].seq)
            if t is not None and t >= opened:
                observe(clock() - t)

        return delivered

    def sent_many(self, seq: int, count: int) -> None:
        """``count`` streams sent record ``seq`` just now: the fan-out's sends from the commit
        callback, counted in blocks rather than observed one by one (always live records)."""
        t = self.committed_at(seq)
        if t is None:
            return
        lag, hist = time.monotonic() - t, self.histogram
        if isinstance(hist, LoopHistogram):
            hist.observe(lag, count)
        else:
            for _ in range(count):
                hist.observe(lag)


SEND_BLOCK = 64  # direct sends counted per observation of the delivery lag


class SendTally:
    """Direct sends (from the commit callback) of one delivery clock, counted as they are made and
    observed every ``SEND_BLOCK`` sends and once more right after the callback: a send costs an
    addition, not a clock read and a histogram update (with 1,000 subscribers that was a tenth of
    the fan-out)."""

    __slots__ = ("n", "scheduled", "sent_many", "seq")

    def __init__(self, sent_many: Callable[[int, int], None]) -> None:
        self.sent_many = sent_many
        self.n = 0
        self.seq = 0
        self.scheduled = False

    def switch(self, seq: int) -> None:
        """The first direct send of a commit whose last record is ``seq``."""
        self.flush()
        self.seq = seq
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._after)

    def flush(self) -> None:
        if self.n:
            n, self.n = self.n, 0
            self.sent_many(self.seq, n)

    def _after(self) -> None:
        self.scheduled = False
        self.flush()


class AbilityMetrics:
    """Metrics abilities declare (``Ability.metrics``: ``(name, kind, help)``), as
    ``metis_ability_<ability>_<name>``; values arrive from workers as ``metric`` emits. An undeclared
    name is dropped (logged once): abilities cannot grow the label or series set."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self._metrics: dict[tuple[str, str], tuple[str, Any]] = {}
        self._warned: set[tuple[str, str]] = set()

    def declare(self, ability: str, specs: Iterable[tuple[str, str, str]]) -> None:
        for name, kind, doc in specs:
            if not _METRIC_NAME.fullmatch(name) or kind not in KINDS:
                raise ValueError(f"ability {ability}: bad metric declaration {name!r} ({kind!r})")
            full = f"metis_ability_{re.sub(r'[^a-z0-9_]', '_', ability.lower())}_{name}"
            if kind == "counter":
                metric: Any = Counter(full, doc, registry=self.registry)
            elif kind == "gauge":
                metric = Gauge(full, doc, registry=self.registry)
            else:
                metric = Histogram(full, doc, buckets=WAIT_BUCKETS if name.endswith("_seconds") else
                                   (0.1, 0.25, 0.5, 0.75, 0.9, 1, 2, 5, 10, 25, 50, 100, 250, 1000),
                                   registry=self.registry)
            self._metrics[(ability, name)] = (kind, metric)

    def declare_all(self, abilities: Iterable[type]) -> None:
        for cls in abilities:
            specs = getattr(cls, "metrics", ())
            if specs:
                self.declare(cls.name, specs)

    def observe(self, ability: str, msg: dict[str, Any]) -> None:
        """One ``{"op": "emit", "kind": "metric", "name", "value"}`` from a worker."""
        name, value = msg.get("name"), msg.get("value")
        found = self._metrics.get((ability, str(name)))
        if found is None or not isinstance(value, int | float) or isinstance(value, bool):
            if (ability, str(name)) not in self._warned:
                self._warned.add((ability, str(name)))
                log.warning("ability_metric_dropped", ability=ability, metric=str(name)[:80],
                            reason="not declared" if found is None else "value is not a number")
            return
        kind, metric = found
        if kind == "counter":
            if value >= 0:
                metric.inc(value)
        elif kind == "gauge":
            metric.set(value)
        else:
            metric.observe(value)


_ability_metrics: AbilityMetrics | None = None
_input_wait: Histogram | None = None
_asked: OrderedDict[tuple[str, str], tuple[float, str]] = OrderedDict()  # (action, request) -> (t, kind)
ASK_KINDS = ("approval", "consent")  # any other ask kind is counted as "input": a bounded label


def asked(a: Any, request_id: str, kind: str) -> None:
    """An action asked its client (the scheduler's hook): start the clock of that request."""
    if _input_wait is None:
        return
    _asked[(a.action_id, request_id)] = (time.monotonic(), kind if kind in ASK_KINDS else "input")
    if len(_asked) > 65536:  # questions never answered (expired, cancelled) fall out
        _asked.popitem(last=False)


def answered(a: Any, request_id: str) -> None:
    """The answer is durable: observe how long the action waited for it (approval latency...)."""
    started = _asked.pop((a.action_id, request_id), None)
    if started is not None and _input_wait is not None:
        _input_wait.labels(a.ability, started[1]).observe(time.monotonic() - started[0])


def ability_metric(ability: str, msg: dict[str, Any]) -> None:
    """A worker's ``metric`` emit (the scheduler's hook); ignored before ``wire``."""
    if _ability_metrics is not None:
        _ability_metrics.observe(ability, msg)


def wire(rlog: Any, scheduler: Any, metrics: Any, abilities: Iterable[type]) -> None:
    """Connect one server's metric and tracing hooks (app assembly calls this once, before recovery)."""
    global _ability_metrics, _input_wait
    from orchestrator import tracing

    tracing.instrument_appends(rlog, metrics.append_seconds)
    rlog.add_listener(metrics.delivery.on_commit)
    scheduler.on_ended.append(lambda a: observe_action(metrics, a))
    metrics.abilities.declare_all(abilities)
    _ability_metrics = metrics.abilities
    _input_wait = metrics.input_wait
