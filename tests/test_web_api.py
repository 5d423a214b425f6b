"""`yz serve`'s JSON API through FastAPI's test client: every endpoint, every bad request."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from yz.solver.budget import MAX_MOVES
from yz.web.app import create_app
from yz.web.settings import MAX_BODY

NO_BONUS = {"variant": "no-bonus"}
LOCAL = "http://127.0.0.1"  # the test client's default name, "testserver", is not a name of ours


# One cache for the module: the server's solver thread reads the cache folder when it runs.
SHARE_CACHE = True


@pytest.fixture(scope="module")
def client(shared_cache):
    import os

    os.environ["YZ_CACHE_DIR"] = str(shared_cache)
    with TestClient(create_app(), base_url=LOCAL) as c:
        ready(c, NO_BONUS)
        yield c


def ready(c: TestClient, rules: dict, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        res = c.post("/api/prepare", json={"rules": rules})
        assert res.status_code == 200, res.text
        body = res.json()
        if body["status"] == "ready":
            return body
        assert body["status"] == "solving" and "stage" in body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def post(c, path, body, status=200):
    res = c.post(path, json=body)
    assert res.status_code == status, res.text
    return res.json()


# ---------------------------------------------------------------- page and documents


def test_page_static_files_and_openapi(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/variants", "/api/rules", "/api/prepare", "/api/new", "/api/state",
                 "/api/hint", "/api/move", "/api/undo"):
        assert path in paths
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and "error" in missing.json()


def test_variants(client):
    rows = client.get("/api/variants").json()
    names = [r["variant"] for r in rows]
    assert "official-free-joker" in names and "example:yacht" in names
    assert all(r["boxes"] > 0 and "description" in r for r in rows)


# ---------------------------------------------------------------- rule sets


def test_rules_check_a_builtin_and_pasted_yaml(client):
    body = post(client, "/api/rules", {"rules": NO_BONUS})
    assert body["rules"]["variant"] == "no-bonus" and body["status"] == "ready"
    assert len(body["rules"]["categories"]) == 13
    yaml = "name: my-house\nextends: official-free-joker\nupper_bonus: {threshold: 70}\n"
    body = post(client, "/api/rules", {"rules": {"yaml": yaml}})
    assert body["rules"]["variant"] == "my-house"
    assert body["rules"]["upper_bonus"] == {"threshold": 70, "amount": 35}


@pytest.mark.parametrize("rules, needle", [
    ({"variant": "no-bonuss"}, "not a built-in rule set"),
    ({"variant": "variants/no-bonus.yaml"}, "not a built-in rule set"),
    ({"variant": "/etc/passwd"}, "not a built-in rule set"),
    ({}, "give either variant"),
    ({"variant": "no-bonus", "yaml": "x: 1"}, "give either variant"),
    ({"yaml": "extends: ../secret.yaml\n"}, "may only extend a built-in"),
    ({"yaml": "extends: /etc/passwd\n"}, "may only extend a built-in"),
    ({"yaml": "name: x\ndice: 5\ncategories: [\n"}, "<pasted rules>:"),
    ({"yaml": "extends: no-bonus\n"}, "name: give the rule set a name"),
    ({"yaml": "name: a\nextends: no-bonus\ndice: 0\n"}, "dice"),
    ({"yaml": "name: a\nextends: no-bonus\nupper_bonus: {threshold: 63}\nboxes: 3\n"},
     "<pasted rules>:4:1: boxes"),
    ({"yaml": "a: &x 1\nb: *x\n"}, "alias"),
    ({"yaml": "name: a\nextends: no-bonus\ndice: 8\nfaces: 10\n"}, "distinct rolls"),
    ({"yaml": "name: a\nextends: yatzy\nyahtzee_category: yatzy\nyahtzee_bonus: {amount: 50}\n"},
     "may need up to"),
    ({"yaml": "name: a\nextends: yatzy\ndice: 8\n"}, "a: solving it exactly would take about"),
    ({"variant": "maxi-yatzy-no-saved-rolls"}, "more than this server's limit of 60 s"),
    ({"yaml": "name: a\x00b\n"}, "<pasted rules>:1:8: the character U+0000"),
    ({"yaml": "name: a\x01b\n"}, "<pasted rules>:1:8: the character U+0001"),
    ({"yaml": "name: a\ufffeb\n"}, "<pasted rules>:1:8: the character U+FFFE"),
    ({"yaml": "- x\n" * 15_000}, "<pasted rules>:2000:3: more than 2,000 values"),
    ({"yaml": "a: " + "[" * 20 + "]" * 20}, "nested more than 12 deep"),
])
def test_bad_rule_sets_are_refused_with_the_reason(client, rules, needle):
    res = client.post("/api/rules", json={"rules": rules})
    assert res.status_code == 422, res.text
    assert needle in res.json()["error"]


BANKED = """\
name: banked
dice: 3
faces: 4
rolls: 2
saved_rolls: {cap: 3}
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: pair, pattern: {kind: of_a_kind, count: 2}, score: sum_matched}
  - {key: chance, pattern: any, score: sum_all}
"""


@pytest.mark.parametrize("fits", [True, False], ids=["with-distribution", "without"])
def test_a_game_with_saved_rolls_is_played(client, monkeypatch, fits):
    """Saved rolls: solved and played (the bank in the view, the rolls left saved by scoring
    early), with the exact distribution and the review's rank, or, where the server's memory
    for it is too small (these games' moves are many), without them."""
    from yz.rules import rules_from_text
    from yz.solver import Model
    from yz.web import rulesets

    text = BANKED if fits else BANKED.replace("cap: 3", "cap: 2")  # (another game to solve)
    if not fits:
        monkeypatch.setattr(rulesets, "MAX_DISTRIBUTION_MEMORY", 1000)
    rules = {"yaml": text}
    prepared = ready(client, rules)
    assert prepared["rules"]["has_distribution"] is fits
    assert prepared["rules"]["saved_rolls"] == {"carry_unused": True, "start": 0,
                                                "cap": 3 if fits else 2}
    exact = Model(rules_from_text(text), use_cache=False).solve().expected_score
    assert prepared["expected_score"] == exact
    if fits:
        assert prepared["distribution"]["expected_score"] == pytest.approx(exact, rel=1e-12)
    else:
        assert prepared["distribution"] is None
    game = post(client, "/api/new", {"rules": rules, "seed": 3})["game"]
    assert game["saved_rolls"] == 0 and game["rolls_left"] == 1
    hint = post(client, "/api/hint", {"rules": rules, "state": game["state"]})
    assert any(o["kind"] == "score" and o["saved_rolls_after"] == 1 for o in hint["options"])
    moved = post(client, "/api/move", {"rules": rules, "state": game["state"],
                                       "move": {"score": "chance"}})["game"]
    assert moved["turn"] == 2 and moved["saved_rolls"] == 1 and moved["rolls_left"] == 2
    while moved["phase"] != "over":
        open_box = next(r["box"] for r in moved["card"] if r["score"] is None)
        moved = post(client, "/api/move", {"rules": rules, "state": moved["state"],
                                           "move": {"score": open_box}})["game"]
    assert ("p_at_most" in moved["review"]) is fits
    assert moved["review"]["total"] == moved["banked"]


def test_an_unsolved_rule_set_says_so_until_prepared(client):
    body = post(client, "/api/new", {"rules": {"variant": "gist"}}, status=409)
    assert "/api/prepare" in body["error"] and body["status"] in ("unsolved", "solving")
    prepared = ready(client, {"variant": "gist"})
    assert prepared["expected_score"] == pytest.approx(210.3395, abs=1e-4)
    dist = prepared["distribution"]
    assert sum(dist["probabilities"]) == pytest.approx(1.0)
    assert post(client, "/api/new", {"rules": {"variant": "gist"}, "seed": 1})["game"]["turn"] == 1


# ---------------------------------------------------------------- games


def test_a_whole_game_through_the_api(client):
    from yz.rules import load_rules
    from yz.rules.position import Position
    from yz.solver import Model
    from yz.solver.advice import advise

    solution = Model(load_rules("no-bonus")).solve()
    game = post(client, "/api/new", {"rules": NO_BONUS, "seed": 21})["game"]
    n = 0
    while game["phase"] != "over":
        hint = post(client, "/api/hint", {"rules": NO_BONUS, "state": game["state"]})
        options = hint["options"]
        assert options[0]["loss"] == 0
        if n == 0:  # the hint is the advisor's answer for the same position
            advice = advise(solution, Position(), tuple(game["dice"]), game["rolls_left"], 0)
            assert options[0]["value"] == pytest.approx(advice.best.value, abs=1e-9)
            assert options[0]["keep"] == list(advice.best.keep)
        n += 1
        pick = options[min(3, len(options) - 1)] if n % 4 == 0 else options[0]
        move = {"keep": pick["keep"]} if pick["kind"] == "keep" else {"score": pick["category"]}
        body = post(client, "/api/move", {"rules": NO_BONUS, "state": game["state"],
                                          "move": move})
        assert body["decision"]["loss"] == pytest.approx(pick["loss"])
        game = body["game"]
    review = game["review"]
    boxes = sum(row["score"] for row in game["card"])
    assert game["banked"] == review["total"] == boxes + game["upper_bonus"] + \
        game["yahtzee_bonus"]
    assert review["lost"] == pytest.approx(sum(d["loss"] for d in game["log"]))
    assert review["total"] == pytest.approx(review["expected_at_start"] - review["lost"]
                                            + review["luck"])
    assert 0 < review["p_at_most"] <= 1 and len(review["worst"]) == 3
    assert game["lost"] == pytest.approx(review["lost"])
    again = post(client, "/api/state", {"rules": NO_BONUS, "state": game["state"]})["game"]
    assert again["banked"] == game["banked"] and again["review"]["total"] == review["total"]


def test_coach_warns_then_plays_when_confirmed(client):
    game = post(client, "/api/new", {"rules": NO_BONUS, "seed": 3})["game"]
    req = {"rules": NO_BONUS, "state": game["state"], "move": {"keep": []},
           "coach_threshold": 1.0}
    body = post(client, "/api/move", req)
    assert body["warning"]["loss"] > 1 and body["warning"]["best"]["loss"] == 0
    assert body["game"]["state"]["moves"] == []  # not played
    body = post(client, "/api/move", {**req, "confirm": True})
    assert body["decision"]["was_best"] is False
    assert body["game"]["state"]["moves"] == [{"keep": []}]
    cheap = post(client, "/api/move", {**req, "coach_threshold": 100.0})
    assert "warning" not in cheap and cheap["decision"] is not None


def test_keeping_every_die_stops_rolling(client):
    """Holding every die and rolling is the coach's "keep all": the rolling stops there (as
    in `yz play`), judged once at what stopping is worth."""
    game = post(client, "/api/new", {"rules": NO_BONUS, "seed": 3})["game"]
    req = {"rules": NO_BONUS, "state": game["state"]}
    game = post(client, "/api/move", {**req, "move": {"score": "large_straight"}})["game"]
    assert game["rolls_left"] == 2
    hint = post(client, "/api/hint", {"rules": NO_BONUS, "state": game["state"]})
    stop = next(o for o in hint["options"] if o["kind"] == "keep" and not o["reroll"])
    body = post(client, "/api/move", {"rules": NO_BONUS, "state": game["state"],
                                      "move": {"keep": game["dice"]}})
    assert body["game"]["phase"] == "score" and body["game"]["rolls_left"] == 0
    assert body["game"]["dice"] == game["dice"]
    assert body["decision"]["loss"] == pytest.approx(stop["loss"]) and stop["loss"] > 1
    warned = post(client, "/api/move", {"rules": NO_BONUS, "state": game["state"],
                                        "move": {"keep": game["dice"]}, "coach_threshold": 1})
    assert warned["warning"]["loss"] == pytest.approx(stop["loss"])


def test_undo(client):
    game = post(client, "/api/new", {"rules": NO_BONUS, "seed": 8})["game"]
    moved = post(client, "/api/move", {"rules": NO_BONUS, "state": game["state"],
                                       "move": {"score": "chance"}})["game"]
    assert moved["turn"] == 2
    back = post(client, "/api/undo", {"rules": NO_BONUS, "state": moved["state"]})["game"]
    assert back["turn"] == 1 and back["dice"] == game["dice"] and back["log"] == []
    body = post(client, "/api/undo", {"rules": NO_BONUS, "state": back["state"]}, status=422)
    assert "no decision to take back" in body["error"]


def test_own_dice(client):
    game = post(client, "/api/new", {"rules": NO_BONUS, "own_dice": True})["game"]
    assert game["phase"] == "dice" and game["dice"] is None
    req = {"rules": NO_BONUS, "state": game["state"]}
    game = post(client, "/api/move", {**req, "move": {"dice": [5, 5, 5, 5, 5]}})["game"]
    body = post(client, "/api/move", {"rules": NO_BONUS, "state": game["state"],
                                      "move": {"score": "yahtzee"}})
    assert body["game"]["banked"] == 50 and body["game"]["phase"] == "dice"
    bad = post(client, "/api/move", {**req, "move": {"dice": [7, 1, 1, 1, 1]}}, status=422)
    assert "cannot show on a 6-sided die" in bad["error"]


def test_two_games_never_mix(client):
    a = post(client, "/api/new", {"rules": NO_BONUS, "seed": 1})["game"]
    b = post(client, "/api/new", {"rules": NO_BONUS, "seed": 2})["game"]
    a2 = post(client, "/api/move", {"rules": NO_BONUS, "state": a["state"],
                                    "move": {"score": "chance"}})["game"]
    b2 = post(client, "/api/state", {"rules": NO_BONUS, "state": b["state"]})["game"]
    assert b2["log"] == [] and b2["dice"] == b["dice"] and a2["log"]


# ---------------------------------------------------------------- bad requests


@pytest.mark.parametrize("body, needle", [
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"keep": [7]}}, "not among the dice"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"score": "sevens"}}, "not a box"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"fly": 1}}, "not a move"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"keep": "66"}}, "list of whole numbers"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {}}, "a move is one of"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"dice": [1, 1, 1, 1, 1]}},
     "rolls its own dice"),
    ({"rules": NO_BONUS, "state": {"seed": 1, "moves": [{"score": "nope"}]},
      "move": {"score": "chance"}}, "state: move 1"),
    ({"rules": NO_BONUS, "state": {"seed": -1}, "move": {"score": "chance"}}, "state.seed"),
    ({"rules": NO_BONUS, "state": {"seed": 1, "turn": 3}, "move": {"score": "chance"}},
     "state.turn: Extra inputs are not permitted"),
    ({"rules": NO_BONUS, "state": {"seed": 1}}, "move: Field required"),
    ({"rules": NO_BONUS, "state": {"seed": 1}, "move": {"score": "chance"},
      "coach_threshold": -2}, "coach_threshold"),
    ({"rules": NO_BONUS, "state": {"seed": 1, "moves": [{"score": "chance"}] * (MAX_MOVES + 1)},
      "move": {"score": "chance"}}, "state.moves"),
])
def test_bad_moves_get_422_naming_the_problem(client, body, needle):
    res = client.post("/api/move", json=body)
    assert res.status_code == 422, res.text
    assert needle in res.json()["error"]


def test_malformed_and_oversized_bodies(client):
    res = client.post("/api/move", content=b"{not json",
                      headers={"content-type": "application/json"})
    assert res.status_code == 422 and "not valid JSON" in res.json()["error"]
    res = client.post("/api/rules", json={"rules": {"yaml": "#" * (MAX_BODY + 10)}})
    assert res.status_code == 413 and "larger than" in res.json()["error"]
    res = client.post("/api/rules", json={"rules": {"yaml": "#" * 70_000}})
    assert res.status_code == 422 and "rules.yaml" in res.json()["error"]
    res = client.post("/api/rules", json=[1, 2])
    assert res.status_code == 422 and "error" in res.json()
    res = client.get("/api/move")
    assert res.status_code == 405 and "error" in res.json()


HUGE = "9" * 60_000  # more digits than Python converts (4,300)
LONG = "9" * 4_000  # a number JSON reads, far too long to quote back
BIG_KEY = "x" * 60_000


def raw(body: dict) -> str:
    """The JSON of `body` with "<HUGE>" and "<LONG>" written as bare numbers of that size."""
    return json.dumps(body).replace('"<HUGE>"', HUGE).replace('"<LONG>"', LONG)


def moving(move: dict, **state) -> dict:
    return {"rules": NO_BONUS, "state": {"seed": 1, **state}, "move": move}


@pytest.mark.parametrize("path, body, needle", [
    ("/api/new", {"rules": NO_BONUS, "seed": "<HUGE>"},
     "body: not readable as JSON (a number has more than 4,300 digits: this one has 60,000)"),
    ("/api/move", moving({"dice": ["<HUGE>", 1, 1, 1, 1]}, own_dice=True),
     "more than 4,300 digits"),
    ("/api/move", moving({"score": "chance"}, moves=[{"keep": ["<HUGE>"]}]),
     "more than 4,300 digits"),
    ("/api/move", moving({"keep": ["<LONG>"]}),
     "move: keep: a number of more than 6 digits is no die's face"),
    ("/api/move", moving({"dice": ["<LONG>", 1, 1, 1, 1]}, own_dice=True),
     "move: dice: a number of more than 6 digits"),
    ("/api/move", moving({"score": "chance"}, moves=[{"keep": ["<LONG>"]}]),
     "state.moves.0: keep: a number of more than 6 digits"),
    ("/api/move", moving({"score": BIG_KEY}),
     "move: score: a text of 60,000 characters is no box's key"),
    ("/api/move", moving({BIG_KEY: 1}), "move: too big to be a move"),
    ("/api/move", {**moving({"score": "chance"}), "coach_threshold": HUGE},
     "coach_threshold: Input should be a finite number"),
    ("/api/new", {"rules": NO_BONUS, "seed": HUGE},
     "seed: Unable to parse input string as an integer"),
    ("/api/new", {"rules": NO_BONUS, BIG_KEY: 1}, "Extra inputs are not permitted"),
    ("/api/rules", {"rules": {"variant": "x" * 199}}, "is not a built-in rule set"),
    ("/api/rules", {"rules": {"yaml": f"name: a\nextends: no-bonus\ndice: {HUGE}\n"}},
     "<pasted rules>: a value cannot be read (a number has more than 4,300 digits: this one "
     "has 60,000)."),
], ids=["seed", "dice", "moves", "keep-4000", "dice-4000", "moves-4000", "box-key", "move-key",
        "threshold", "seed-text", "field-name", "variant", "yaml"])
def test_huge_numbers_and_texts_get_a_clean_message(client, path, body, needle):
    """A number or text far too long for its place is refused in one short paragraph that
    names the problem: never Python's advice (sys.set_int_max_str_digits) nor the text
    itself quoted back whole."""
    res = client.post(path, content=raw(body).encode(),
                      headers={"content-type": "application/json"})
    assert 400 <= res.status_code < 500, res.text[:500]
    error = res.json()["error"]
    assert needle in error, error
    assert "sys." not in error and "set_int_max_str_digits" not in error, error
    assert "9" * 31 not in error and "x" * 81 not in error and "\n" not in error, error
    assert len(res.content) < 2_000


def test_serve_without_the_web_extra_exits_2(monkeypatch):
    import builtins

    from typer.testing import CliRunner
    from yz.cli.main import app

    real_import = builtins.__import__

    def no_uvicorn(name, *args, **kwargs):
        if name == "uvicorn":
            raise ImportError("No module named 'uvicorn'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_uvicorn)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2
    assert "pip install 'yz[web]'" in result.output


def test_yz_serve_starts_the_page_on_the_given_port(tmp_path):
    import json
    import socket
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = Path(sys.executable).with_name("yz")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "yz.cli.main"]
    proc = subprocess.Popen([*cmd, "serve", "--port", str(port)], stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/variants",
                                            timeout=5) as res:
                    rows = json.load(res)
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "yz serve did not answer"
                time.sleep(0.2)
        assert any(r["variant"] == "no-bonus" for r in rows)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)  # a hang guard: a busy machine may be slow to stop it
    assert f"http://127.0.0.1:{port}/" in err and "Traceback" not in err


def test_solves_run_one_at_a_time(monkeypatch):
    # Every solve and distribution of the server goes through its one worker thread, so two
    # pasted rule sets share the cores one after the other, never at once.
    import threading

    from yz.solver import Model

    active: dict[int, int] = {}  # thread -> calls under way (a distribution solves first)
    peak = [0]
    lock = threading.Lock()

    def counted(real):
        def run(*args, **kwargs):
            me = threading.get_ident()
            with lock:
                active[me] = active.get(me, 0) + 1
                peak[0] = max(peak[0], sum(1 for n in active.values() if n))
            try:
                time.sleep(0.1)
                return real(*args, **kwargs)
            finally:
                with lock:
                    active[me] -= 1
        return run

    import yz.solver.distribution as distribution

    # The computing parts (a request thread answers from the model's memory or the cache).
    monkeypatch.setattr(Model, "_compute", counted(Model._compute))
    monkeypatch.setattr(distribution, "score_distribution",
                        counted(distribution.score_distribution))
    with TestClient(create_app(), base_url=LOCAL) as c:
        names = ("no-bonus", "gist", "no-upper-bonus")
        threads = [threading.Thread(target=ready, args=(c, {"variant": v})) for v in names]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for v in names:
            assert post(c, "/api/new", {"rules": {"variant": v}, "seed": 1})["game"]["turn"] == 1
    assert peak[0] == 1
