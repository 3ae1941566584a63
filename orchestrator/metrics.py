"""Prometheus metrics (``metis_`` prefix, base units, ``_total`` counters, no per-action labels)."""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

from orchestrator.observe import (
    ACTION_BUCKETS,
    FAST_BUCKETS,
    WAIT_BUCKETS,
    AbilityMetrics,
    DeliveryClock,
    LoopHistogram,
    TotalCounter,
)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions_started = Counter("metis_actions_started_total", "Actions started", ["ability"], registry=r)
        self.actions_ended = Counter("metis_actions_ended_total", "Actions ended", ["ability", "status"], registry=r)
        self.toolbus_requests = Counter("metis_toolbus_requests_total", "ToolBus requests", ["method", "outcome"],
                                        registry=r)
        self.toolbus_seconds = Histogram("metis_toolbus_request_duration_seconds", "ToolBus request latency",
                                         buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5), registry=r)
        self.toolbus_connections = Gauge("metis_toolbus_connections", "Open ToolBus connections", registry=r)
        self.sse_subscribers = Gauge("metis_sse_subscribers", "Open SSE and events.subscribe subscribers", registry=r)
        self.sse_dropped = TotalCounter("metis_sse_dropped_subscribers", "Subscribers dropped for being too slow",
                                        registry=r)
        self.log_records = Gauge("metis_log_records", "Records in the receipt log", registry=r)
        self.log_commits = TotalCounter("metis_log_commits", "Group commits since start", registry=r)
        self.workers = Gauge("metis_workers", "Worker processes", registry=r)
        self.workers_idle = Gauge("metis_workers_idle", "Idle worker processes", registry=r)
        self.actions_status = Gauge("metis_actions", "Actions by status", ["status"], registry=r)
        # tenants come from the tokens file (configured, never client-chosen): a bounded label set
        self.tenant_queued = Gauge("metis_tenant_queued_actions", "Actions ready and waiting for a slot, by tenant",
                                   ["tenant"], registry=r)
        self.tenant_running = Gauge("metis_tenant_running_actions", "Actions holding a slot, by tenant",
                                    ["tenant"], registry=r)
        self.tenant_parked = Gauge("metis_tenant_parked_actions",
                                   "Actions parked on a person, an approval or a sub-action (no slot, no process)",
                                   ["tenant"], registry=r)
        self.storage_ready = Gauge("metis_storage_ready", "1 while the log takes appends, 0 while they fail",
                                   registry=r)
        self.storage_failures = TotalCounter("metis_storage_failed_commits", "Failed log commits since start",
                                             registry=r)
        self.actions_resumed = TotalCounter("metis_actions_resumed", "Runs resumed by replay since start", registry=r)
        # obs: histograms (orchestrator/observe.py), process/platform/GC collectors, ability-declared metrics
        self.action_seconds = Histogram("metis_action_duration_seconds", "Run time of ended actions",
                                        ["ability", "status"], buckets=ACTION_BUCKETS, registry=r)
        self.queue_wait = Histogram("metis_action_queue_wait_seconds", "From created to first running, by tenant",
                                    ["tenant"], buckets=WAIT_BUCKETS, registry=r)
        self.append_seconds = Histogram("metis_log_append_duration_seconds", "Log append: submitted to durable",
                                        buckets=FAST_BUCKETS, registry=r)
        self.sse_lag = LoopHistogram("metis_sse_delivery_lag_seconds", "Record commit to sent on an SSE stream (live)",
                                     buckets=FAST_BUCKETS, registry=r)  # observed per subscriber per record
        self.input_wait = Histogram("metis_action_input_wait_seconds",
                                    "A question or approval asked to its durable answer (approval latency)",
                                    ["ability", "kind"], buckets=ACTION_BUCKETS, registry=r)
        self.delivery = DeliveryClock(self.sse_lag)
        self.abilities = AbilityMetrics(r)
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)

    def render(self) -> bytes:
        return generate_latest(self.registry)
