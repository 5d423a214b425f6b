"""`yz serve` under hostile or careless use: headers, hosts, shared strategies, the solve queue.

The solver's queue is exercised with a stand-in solve that reports progress until the test lets
it finish (no CPU spent), except where the real solver's cancellation itself is checked.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from yz.web.app import create_app
from yz.web.settings import WebSettings

LOCAL = "http://127.0.0.1"
HOSTILE = '<img src=x onerror="window.__pwned=1">'
GENERALA_ONE_ROLL = "extends: generala\nrolls: 1\n"


def hostile_rules() -> str:
    """Generala with one roll, every name and the description carrying markup."""
    from yz.rules import load_rules

    boxes = "".join(f"  - {{key: {c.key}, name: '{HOSTILE} {c.key}'}}\n"
                    for c in load_rules("generala").categories)
    return (f"name: '<script>window.__pwned=2</script>'\ndescription: '{HOSTILE}'\n"
            f"{GENERALA_ONE_ROLL}categories:\n{boxes}")


def wait_ready(c: TestClient, rules: dict, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        res = c.post("/api/prepare", json={"rules": rules})
        assert res.status_code == 200, res.text
        if res.json()["status"] == "ready":
            return res.json()
        assert time.monotonic() < deadline, res.json()
        time.sleep(0.1)


@pytest.fixture
def app_client():
    with TestClient(create_app(), base_url=LOCAL) as c:
        yield c


# ---------------------------------------------------------------- headers and hosts


def test_every_answer_carries_the_content_security_policy(app_client):
    c = app_client
    answers = [c.get("/"), c.get("/static/app.js"), c.get("/api/variants"),
               c.get("/api/nothing"), c.post("/api/rules", json={}),
               c.get("/", headers={"host": "evil.example"})]
    for res in answers:
        policy = res.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split(
            "style-src")[0], (res.request.url, policy)
        assert res.headers["x-content-type-options"] == "nosniff"
        assert res.headers["x-frame-options"] == "DENY"


def test_the_page_has_no_inline_script_or_style(app_client):
    import re

    html = app_client.get("/").text
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # every script is a file
    assert "<style" not in html and " style=" not in html and "onclick" not in html


def test_the_page_knows_the_servers_limit_on_a_rule_set(app_client):
    """The page refuses a paste over the server's limit itself: the same number."""
    import re

    from yz.web.settings import MAX_YAML_CHARS

    script = app_client.get("/static/app.js").text
    assert int(re.search(r"const MAX_RULES_CHARS = (\d+);", script)[1]) == MAX_YAML_CHARS


def test_api_docs_come_from_local_files(app_client):
    page = app_client.get("/docs")
    assert page.status_code == 200
    import re

    links = re.findall(r'(?:src|href)="([^"]*)"', page.text)
    assert links and all(link.startswith("/static/docs/") for link in links), links
    assert app_client.get("/static/docs/swagger-ui-bundle.js").status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy  # its one inline script, by hash
    assert app_client.get("/redoc").status_code == 404  # ReDoc would need a CDN


@pytest.mark.parametrize("host, status", [
    ("127.0.0.1:8765", 200), ("localhost:8765", 200), ("[::1]:8765", 200), ("LOCALHOST", 200),
    ("evil.example", 421), ("evil.example:8765", 421), ("127.0.0.1.evil.example", 421),
    ("", 421), ("[::1", 421),
])
def test_host_header_must_name_this_server(app_client, host, status):
    res = app_client.get("/api/variants", headers={"host": host})
    assert res.status_code == status, res.text
    if status != 200:
        assert "is not a name of this server" in res.json()["error"]


def test_a_host_given_at_start_is_accepted():
    settings = WebSettings(hosts=("127.0.0.1", "yz.lan"))
    with TestClient(create_app(settings), base_url="http://yz.lan:8000") as c:
        assert c.get("/api/variants").status_code == 200
        assert c.get("/api/variants", headers={"host": "localhost"}).status_code == 421


@pytest.mark.parametrize("host, origin, status", [
    ("127.0.0.1:8765", "http://127.0.0.1:8765", 200),  # the page's own origin
    ("127.0.0.1:8765", "http://localhost:8765", 200),  # another name of this server
    ("127.0.0.1:8765", "http://[::1]:8765", 200),
    ("localhost:8765", "http://LOCALHOST:8765", 200),
    ("localhost", "http://localhost", 200),  # the scheme's own port, written or not
    ("localhost", "http://localhost:80", 200),
    ("127.0.0.1:8765", "http://localhost:1234", 403),  # another program's page here
    ("127.0.0.1:8765", "http://127.0.0.1", 403),
    ("127.0.0.1:8765", "https://127.0.0.1:8765", 403),  # another scheme
    ("127.0.0.1:8765", "http://127.0.0.1:99999", 403),  # no port at all
    ("127.0.0.1:8765", "http://127.0.0.1:8765x", 403),
    ("127.0.0.1:8765", "https://evil.example", 403),
    ("127.0.0.1:8765", "http://evil.example:8765", 403),
])
def test_requests_from_another_origin_are_refused(app_client, host, origin, status):
    """The origin is scheme, name and port: a page served by another program on this
    machine (another port) is another origin, like a page of another host."""
    res = app_client.post("/api/rules", json={"rules": {"variant": "no-bonus"}},
                          headers={"host": host, "origin": origin})
    assert res.status_code == status, res.text
    if status == 403:
        assert f"requests from {origin!r} are not accepted" in res.json()["error"]


# ---------------------------------------------------------------- strategies share numbers only


def test_a_shared_strategy_never_carries_another_rule_sets_names(app_client):
    c = app_client
    hostile = {"yaml": hostile_rules()}
    first = wait_ready(c, hostile)
    assert first["rules"]["categories"][0]["name"].startswith(HOSTILE)
    plain = {"yaml": f"name: plain\n{GENERALA_ONE_ROLL}"}
    second = c.post("/api/prepare", json={"rules": plain}).json()
    assert second["status"] == "ready"  # the same scoring: the strategy is shared
    game = c.post("/api/new", json={"rules": plain, "seed": 1}).json()["game"]
    hint = c.post("/api/hint", json={"rules": plain, "state": game["state"]}).json()
    for text in (str(second), str(game), str(hint)):
        assert "<" not in text and "onerror" not in text, text
    assert game["variant"] == "plain"
    assert {row["name"] for row in game["card"]} >= {"Ones", "Generala"}
    again = c.post("/api/new", json={"rules": hostile, "seed": 1}).json()["game"]
    assert again["card"][0]["name"].startswith(HOSTILE)  # and each its own


# ---------------------------------------------------------------- the solve queue


class StandInSolve:
    """Replaces the computing part of `Model.solve`: reports progress every 20 ms until
    released, then solves."""

    def __init__(self, monkeypatch):
        from yz.solver import Model

        self.release = threading.Event()
        self.started: list[str] = []
        self.aborted: list[str] = []
        real = Model._compute

        def compute(model, with_sd=False):
            self.started.append(model.name)
            try:
                with model.report.stage(f"solving {model.name}", "states") as step:
                    for i in range(100_000):
                        if self.release.is_set():
                            break
                        step(i, 100_000)
                        time.sleep(0.02)
            except BaseException:
                self.aborted.append(model.name)
                raise
            return real(model, with_sd)

        monkeypatch.setattr(Model, "_compute", compute)


def test_prepares_beyond_the_queue_get_429(monkeypatch):
    stand_in = StandInSolve(monkeypatch)
    settings = WebSettings(max_queued=2)
    with TestClient(create_app(settings), base_url=LOCAL) as c:
        for v in ("no-bonus", "gist"):
            assert c.post("/api/prepare", json={"rules": {"variant": v}}).json()["status"] \
                == "solving"
        res = c.post("/api/prepare", json={"rules": {"variant": "generala"}})
        assert res.status_code == 429 and "try again" in res.json()["error"]
        assert res.headers["retry-after"]
        queued = c.post("/api/prepare", json={"rules": {"variant": "gist"}}).json()
        assert queued["stage"] == "queued" and queued["ahead"] == 1
        running = c.post("/api/prepare", json={"rules": {"variant": "no-bonus"}}).json()
        assert running["stage"] == "solving" and 0 <= running["percent"] < 100
        assert running["eta_seconds"] >= 0
        stand_in.release.set()
        wait_ready(c, {"variant": "no-bonus"})
        wait_ready(c, {"variant": "generala"})  # room again


def test_a_solve_nobody_polls_is_cancelled_and_nothing_cached(monkeypatch):
    from yz.rules import compile_rules, load_rules
    from yz.solver import cache

    stand_in = StandInSolve(monkeypatch)
    settings = WebSettings(abandon_after=0.5)
    with TestClient(create_app(settings), base_url=LOCAL) as c:
        c.post("/api/prepare", json={"rules": {"variant": "gist"}})
        deadline = time.monotonic() + 30
        while not stand_in.aborted:
            assert time.monotonic() < deadline, "the abandoned solve was not cancelled"
            time.sleep(0.05)
        assert stand_in.aborted == ["gist"]
        assert not cache.meta_path(compile_rules(load_rules("gist"))).exists()
        stand_in.release.set()
        assert wait_ready(c, {"variant": "gist"})["expected_score"] > 0  # asked again: solved


def test_an_exception_in_a_progress_report_aborts_a_real_solve_uncached():
    import contextlib

    from yz.solver import Model, Reporter, cache

    class Stop(Exception):
        pass

    calls = []

    class Stopping(Reporter):
        def __init__(self, units):
            self.units = units

        @contextlib.contextmanager
        def stage(self, label, unit):
            def stop(done, total):
                if unit in self.units:
                    calls.append(done)
                    raise Stop
            yield stop

    model = Model("no-bonus", report=Stopping({"states"}))
    with pytest.raises(Stop):
        model.solve()
    assert calls == [calls[0]] and not cache.meta_path(model.tables).exists()
    model = Model("no-bonus", report=Stopping({"boxes"}))
    model.solve()
    with pytest.raises(Stop):
        model.distribution()
    assert cache.load_figures(model.tables, "pmf-optimal") is None


def test_cached_rule_sets_never_wait_behind_a_running_solve(monkeypatch):
    from yz.solver import Model

    Model("no-bonus").distribution()  # in the disk cache, as after a restart
    stand_in = StandInSolve(monkeypatch)
    with TestClient(create_app(), base_url=LOCAL) as c:
        assert c.post("/api/prepare", json={"rules": {"variant": "gist"}}).json()["status"] \
            == "solving"
        while not stand_in.started:
            time.sleep(0.02)
        res = c.post("/api/prepare", json={"rules": {"variant": "no-bonus"}})
        assert res.json()["status"] == "ready"
        game = c.post("/api/new", json={"rules": {"variant": "no-bonus"}, "seed": 3})
        assert game.status_code == 200
        assert stand_in.started == ["gist"] and not stand_in.release.is_set()
        stand_in.release.set()


def test_the_list_marks_games_too_big_for_the_page(app_client):
    rows = {r["variant"]: r for r in app_client.get("/api/variants").json()}
    assert rows["official-free-joker"]["playable"] is True
    maxi = rows["maxi-yatzy-no-saved-rolls"]
    assert maxi["playable"] is False and "would take about" in maxi["why"]


def test_the_solve_time_limit_is_a_setting():
    settings = WebSettings(max_solve_seconds=3.0, offline_command="yz play {rules}")
    with TestClient(create_app(settings), base_url=LOCAL) as c:
        res = c.post("/api/rules", json={"rules": {"variant": "official-free-joker"}})
        assert res.status_code == 422
        error = res.json()["error"]
        assert "limit of 3 s" in error and "yz play official-free-joker" in error
        pasted = c.post("/api/rules", json={"rules": {"yaml": "name: a\nextends: yatzy\n"}})
        assert "yz play rules.yaml" in pasted.json()["error"]
