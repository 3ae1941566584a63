"""The Canvas page in a real browser (Debian's chromium driven by Playwright) against a real server.

One server and one browser for the module. Screenshots go to a temporary directory (printed at
the end, and kept with ``METIS_CANVAS_SHOTS=DIR``)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from metis_client import SyncClient
from tests.support import MetisServer, write_tokens

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed (scripts/test installs it)")
ABILITIES = "tests.abilities_testing:ABILITIES,tests.data.client.abilities:ABILITIES"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"]
CANVAS_APPROVER = "tok-acme-canvas-approver"


@pytest.fixture(scope="module")
def shots() -> Path:
    d = Path(os.environ.get("METIS_CANVAS_SHOTS") or tempfile.mkdtemp(prefix="canvas-shots-"))
    d.mkdir(parents=True, exist_ok=True)
    yield d
    print(f"\ncanvas screenshots in {d}")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> MetisServer:
    root = tmp_path_factory.mktemp("canvas")
    tokens = write_tokens(root / "tokens.json")
    data = json.loads(tokens.read_text())
    data[CANVAS_APPROVER] = {"tenant": "acme", "roles": ["canvas", "approver"]}
    tokens.write_text(json.dumps(data))
    s = MetisServer(root / "data", extra_args=["--tokens", str(tokens), "--workers", "2"],
                    env={"METIS_EXTRA_ABILITIES": ABILITIES, "METIS_WORKER_PREIMPORT": "0"}).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def client(server: MetisServer, token: str | None = None) -> SyncClient:
    return SyncClient(server.http_url, token or server.token("partner"))


def article(page, action_id: str):
    return page.locator(f'article[id="action-{action_id}"]')


def test_the_readme_link_shows_events_without_a_click(server, page, shots):
    with client(server) as c:
        act = c.start("t_story", {"steps": 3}, topic="canvas-readme")
        view = act.result(timeout=60)
        started = act.aio.started
    # the link `metis run` prints and the README shows: topic and the stream token from actions.start
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server.http_url}/canvas/?topic={started['topic']}&token={started['stream']['token']}")
    art = article(page, act.action_id)
    art.locator(".badge.completed").wait_for(timeout=15000)
    assert page.locator("#state").get_attribute("data-state") == "live"
    assert "t_story finished in" in art.locator("h2").inner_text()
    kinds = art.locator(".groups details").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert kinds[:4] == ["plan_delta", "verifier_update", "context_delta", "boundary_summary"]
    assert art.locator("details[data-kind=plan_delta] li").count() == 3
    summary = art.locator("section.summary:not(.document)")
    assert f"total {view['outputs']['total']}" in summary.inner_text() and "{" not in summary.inner_text()
    # a stream token can watch, not act: the page says so rather than failing later
    assert "watch only" in page.locator("#calls").inner_text()
    page.screenshot(path=str(shots / "readme-link.png"), full_page=True)
    # nothing is fetched from anywhere but the server (no CDN, no fonts, no build output)
    assert requests and all(u.startswith((server.http_url, server.ws_url.rsplit("/", 1)[0])) for u in requests), requests


def test_answer_a_prompt_on_the_page(server, page, shots):
    page.goto(f"{server.http_url}/canvas/?topic=canvas-answer&token={server.token('canvas')}")
    page.locator("#state[data-state=live]").wait_for(timeout=15000)
    with client(server) as c:
        act = c.start("t_story", {"steps": 4, "question": "Which budget cap applies: 5000 or 4000?"}, topic="canvas-answer")
        art = article(page, act.action_id)
        box = art.get_by_label("Your answer (JSON, or plain text)")
        box.wait_for(timeout=20000)
        assert "needs your answer" in art.locator("h2").inner_text()
        assert "Which budget cap applies" in art.locator(".prompt h3").inner_text()
        page.screenshot(path=str(shots / "canvas-live.png"), full_page=True)
        box.fill('{"cap": 4000}')
        box.press("Control+Enter")
        art.locator(".badge.completed").wait_for(timeout=20000)
        assert c.action(act.action_id).get()["outputs"]["answer"] == {"cap": 4000}
    doc = art.locator("section.document")
    doc.wait_for(timeout=10000)
    assert "Budget plan" in doc.inner_text() and "4000" in doc.inner_text()
    assert art.locator(".prompt").count() == 0
    page.screenshot(path=str(shots / "canvas-completed.png"), full_page=True)


def test_approve_when_the_role_allows(server, page):
    with client(server) as c:
        act = c.start("t_story", {"steps": 1, "question": "Spend 4000?", "kind": "approval"}, topic="canvas-approve")
        page.goto(f"{server.http_url}/canvas/?topic=canvas-approve&token={CANVAS_APPROVER}")
        art = article(page, act.action_id)
        art.get_by_role("button", name="Approve").click(timeout=20000)
        art.locator(".badge.completed").wait_for(timeout=20000)
        assert c.action(act.action_id).get()["outputs"]["answer"]["granted"] is True
    # a plain canvas token sees the request but no button
    with client(server) as c:
        act2 = c.start("t_story", {"steps": 1, "question": "Spend 5000?", "kind": "approval"}, topic="canvas-approve-2")
        page.goto(f"{server.http_url}/canvas/?topic=canvas-approve-2&token={server.token('canvas')}")
        art2 = article(page, act2.action_id)
        # the prompt first says it is connecting to the ToolBus, then what this token may do
        art2.locator(".prompt", has_text="this token cannot approve").wait_for(timeout=20000)
        assert art2.get_by_role("button", name="Approve").count() == 0
        c.action(act2.action_id).cancel("test over")


def test_a_bad_token_says_auth_failed(server, page, shots):
    page.goto(f"{server.http_url}/canvas/?topic=anything&token=bogus")
    state = page.locator("#state[data-state=stopped]")
    state.wait_for(timeout=10000)
    assert "auth failed" in state.inner_text()
    page.wait_for_timeout(1500)
    assert page.locator("#state").get_attribute("data-state") == "stopped"  # no silent retry loop
    page.screenshot(path=str(shots / "bad-token.png"))


def test_a_token_without_a_topic_lists_recent_topics(server, page):
    with client(server) as c:
        c.start("t_story", {"steps": 1}, topic="canvas-recent").result(timeout=60)
    page.goto(f"{server.http_url}/canvas/?token={server.token('canvas')}")
    link = page.get_by_role("link", name="canvas-recent")
    link.click(timeout=15000)
    page.locator(".badge.completed").first.wait_for(timeout=15000)
    assert "topic=canvas-recent" in page.url


def test_the_form_and_keyboard(server, page):
    page.goto(f"{server.http_url}/canvas/")
    form = page.locator("#connect")
    assert form.is_visible()
    page.get_by_label("Topic", exact=True).fill("canvas-form")
    page.get_by_label("Token", exact=True).fill(server.token("canvas"))
    page.keyboard.press("Enter")
    page.locator("#state[data-state=live]").wait_for(timeout=15000)
    assert "topic=canvas-form" in page.url
    assert page.locator("header").count() == 1 and page.locator("main").count() == 1 and page.locator("footer").count() == 1


def test_the_timeline_resumes_after_a_restart_with_no_duplicate(server, page, shots):
    page.goto(f"{server.http_url}/canvas/?topic=canvas-restart&token={server.token('canvas')}")
    page.locator("#state[data-state=live]").wait_for(timeout=15000)
    with client(server) as c:
        first = c.start("t_story", {"steps": 2}, topic="canvas-restart")
        first.result(timeout=60)
    article(page, first.action_id).locator(".badge.completed").wait_for(timeout=15000)
    server.stop()
    page.locator("#state[data-state=reconnecting]").wait_for(timeout=15000)
    server.start()
    page.locator("#state[data-state=live]").wait_for(timeout=30000)
    with client(server) as c:
        second = c.start("t_story", {"steps": 2}, topic="canvas-restart")
        second.result(timeout=60)
    article(page, second.action_id).locator(".badge.completed").wait_for(timeout=20000)
    states = page.evaluate("window.__canvas.states")
    assert any(s.startswith("reconnecting (attempt") for s in states), states
    assert page.locator("#resumed").inner_text().startswith("resumed after #")
    seqs = page.locator("li[data-seq]").evaluate_all("els => els.map(e => Number(e.dataset.seq))")
    assert len(seqs) == len(set(seqs))  # no event shown twice
    with client(server) as c:
        events = []
        for ev in c.stream("canvas-restart"):
            events.append(ev)
            if ev.terminal and ev.action_id == second.action_id:
                break
    # every event of the topic is on the timeline, except progress (shown as the bar)
    assert sorted(seqs) == [e.id for e in events if e.event != "action_progress"]
    assert {e.action_id for e in events} == {first.action_id, second.action_id}
    page.screenshot(path=str(shots / "after-restart.png"), full_page=True)
