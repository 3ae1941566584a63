"""The ``sandbox`` ability: a deterministic code check (a Python function and its test cases) run
in the shared confined runner, with no network, one receipt per sandbox process and per run.

Each test is one call of the function in the jail; what it returned (or raised, or how the process
ended) is judged here by trusted code (``check.py``), never by the code under test. A test that
kills its process (CPU, wall clock, output, a crash) is an ``error`` and a fresh sandbox runs the
remaining tests. The candidate's ``random`` is seeded from the action's seed, so the same seed and
inputs give byte-identical outputs.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from pydantic import BaseModel

from abilities.base import Ability, AbilityError, ActionContext, PartialResult
from abilities.confine import CandidateEnded, CandidateError, ConfinementUnavailable, Limits, Session
from abilities.sandbox.check import canonical, counts, judge, not_run, sha256
from abilities.sandbox.models import SandboxInputs, SandboxOutputs, TestResult

#: What the outputs say about the jail (host paths and ids stay out of client-visible outputs).
SHOWN = ("namespaces", "root", "capabilities", "no_new_privs", "seccomp_denied", "fresh_interpreter")
MAX_WALL_S = 3600.0


class _Run:
    """One check in progress: the tests, their results so far, the sandboxes started."""

    def __init__(self, ctx: ActionContext, inp: SandboxInputs) -> None:
        self.ctx, self.inp = ctx, inp
        self.results: list[TestResult | None] = [None] * len(inp.tests)
        self.sessions = 0
        self.load_error: str | None = None
        self.isolation: dict[str, Any] = {}
        self.seed = ctx.rng("sandbox.candidate").getrandbits(63)
        self.code_sha256 = sha256(inp.code)
        self.tests_sha256 = sha256(canonical([t.model_dump() for t in inp.tests]))

    def outputs(self, why_not_run: str) -> SandboxOutputs:
        results = [r or not_run(t, why_not_run) for r, t in zip(self.results, self.inp.tests, strict=True)]
        c = counts(results)
        verdict = "did_not_load" if self.load_error else ("passed" if c["passed"] == c["total"] else "failed")
        sandbox = {k: self.isolation[k] for k in SHOWN if k in self.isolation}
        sandbox.update(network="none: own network namespace, every socket call refused",
                       limits=self.inp.limits.model_dump())
        return SandboxOutputs(language=self.inp.language, function=self.inp.function, code_sha256=self.code_sha256,
                              tests_sha256=self.tests_sha256, verdict=verdict, load_error=self.load_error,
                              results=results, sessions=self.sessions, sandbox=sandbox, **c)

    def stop(self) -> NoReturn:
        """End ``partial`` with the tests run so far (the budget is spent)."""
        raise PartialResult(self.outputs("budget exhausted before this test").model_dump())

    def stop_if_asked(self) -> None:
        if self.ctx.should_stop():
            self.stop()

    def record(self, i: int, result: TestResult) -> None:
        self.results[i] = result
        self.ctx.use(steps=1)
        self.ctx.checkpoint("verifier_update", {"verifier": "sandbox", "test": result.name, "verdict": result.status,
                                                "output_sha256": result.output_sha256})
        self.ctx.progress((i + 1) / len(self.results), result.name)

    def session(self, first: int) -> int:
        """Run tests from ``first`` in one fresh sandbox; the index of the next test to run."""
        lim = self.inp.limits
        left = self.ctx.budget_left().get("wall_s")
        wall = MAX_WALL_S if left is None else min(MAX_WALL_S, left)
        if wall < 0.2:
            self.stop()
        box = Session(self.inp.code, self.inp.function, Limits(cpu_s=lim.cpu_s, wall_s=wall, mem_mb=lim.mem_mb),
                      seed=self.seed)
        self.sessions += 1
        i, ended = first, None
        try:
            with box:
                self.isolation = box.isolation
                while i < len(self.results):
                    self.stop_if_asked()
                    test = self.inp.tests[i]
                    try:
                        result = judge(test, "value", box.invoke(test.args, test.kwargs, test.timeout_s or lim.test_timeout_s))
                    except CandidateError as exc:
                        result = judge(test, "raised", str(exc))
                    self.record(i, result)
                    i += 1
        except ConfinementUnavailable as exc:
            raise AbilityError("sandbox_unavailable", str(exc)) from exc
        except CandidateError as exc:  # raised while loading: the module itself failed
            self.isolation = box.isolation
            self.load_error = str(exc)
            i = len(self.results)
        except CandidateEnded as exc:
            ended = {"status": exc.status, "reason": exc.reason}
            if exc.status == "timeout" and self.ctx.should_stop():  # the action's wall budget, not the test's
                self.stop()
            if box.calls == 0:
                self.load_error = f"{exc.status}: {exc.reason}"
                i = len(self.results)
            else:
                self.record(i, judge(self.inp.tests[i], "ended", (exc.status, exc.reason)))
                i += 1
        finally:
            self.ctx.receipt("sandbox_session", {"session": self.sessions, "first_test": first, "next_test": i,
                                                 "ended": ended, "code_sha256": self.code_sha256})
        return i


class SandboxAbility(Ability):
    """Run a function's test cases in the confined runner and report per-test results with hashes."""

    name: ClassVar[str] = "sandbox"
    version: ClassVar[str] = "1.0.0"
    description: ClassVar[str] = ("sandbox: run a deterministic code check (a Python function and its test cases) "
                                  "in the hardened sandbox, network denied; per-test results with hashes")
    Inputs: ClassVar[type[BaseModel]] = SandboxInputs
    Outputs: ClassVar[type[BaseModel]] = SandboxOutputs

    def run(self, ctx: ActionContext, inputs: Any) -> SandboxOutputs:
        inp = inputs if isinstance(inputs, SandboxInputs) else SandboxInputs.model_validate(inputs)
        run = _Run(ctx, inp)
        ctx.checkpoint("plan_delta", {"function": inp.function, "tests": len(inp.tests),
                                      "code_sha256": run.code_sha256, "tests_sha256": run.tests_sha256})
        i = 0
        try:
            while i < len(inp.tests):
                i = run.session(i)
        except PartialResult as partial:
            _receipt(ctx, SandboxOutputs.model_validate(partial.outputs), run.sessions, complete=False)
            raise
        out = run.outputs("the code did not load")
        _receipt(ctx, out, run.sessions, complete=True)
        ctx.checkpoint("boundary_summary", {"verdict": out.verdict, "passed": out.passed, "total": out.total,
                                            "code_sha256": run.code_sha256, "tests_sha256": run.tests_sha256})
        return out


def _receipt(ctx: ActionContext, out: SandboxOutputs, sessions: int, complete: bool) -> None:
    ctx.receipt("sandbox_run", {"function": out.function, "code_sha256": out.code_sha256,
                                "tests_sha256": out.tests_sha256, "verdict": out.verdict, "complete": complete,
                                "results": [{"name": r.name, "status": r.status, "output_sha256": r.output_sha256}
                                            for r in out.results], "sessions": sessions})
