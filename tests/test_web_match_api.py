"""`yz serve`'s two-player API (/api/match/*) through FastAPI's test client: a match started,
its chances worked out on the solver's thread (202 `pending` until done), the bot's moves one
per request, a person's moves judged by the chance of winning, undo, and bad requests."""

from __future__ import annotations

import os
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from test_match import TINY
from yz.rules import rules_from_text
from yz.solver import Model
from yz.solver.match import Match
from yz.web.app import create_app

RULES = {"yaml": TINY}
SHARE_CACHE = True


@pytest.fixture(scope="module")
def client(shared_cache):
    os.environ["YZ_CACHE_DIR"] = str(shared_cache)
    with TestClient(create_app(), base_url="http://127.0.0.1") as c:
        while c.post("/api/prepare", json={"rules": RULES}).json()["status"] != "ready":
            time.sleep(0.1)
        yield c


def call(c, path: str, body: dict, status: int = 200) -> tuple[dict, int]:
    """The answer, once the work it needs is done (a 202 is asked again, as the page does),
    and how many 202s came first."""
    for pending in range(600):
        res = c.post(path, json=body)
        if res.status_code != 202:
            assert res.status_code == status, res.text
            return res.json(), pending
        assert set(res.json()["pending"]) >= {"status", "what", "eta_seconds"}
        time.sleep(0.05)
    raise AssertionError(f"{path} still pending")


def test_a_match_through_the_api(client):
    body, pending = call(client, "/api/match/new", {"rules": RULES, "seed": 21,
                                                    "seats": ["person", "win"], "first": 1})
    game = body["game"]
    assert pending >= 1  # (a fresh cache: the chances are worked out first)
    assert game["match"]["bot_to_move"] and game["match"]["current"] == 1
    model = Model(rules_from_text(TINY))
    while not game["match"]["over"]:
        state = game["state"]
        if game["match"]["bot_to_move"]:
            moves = len(state["moves"])
            body, _ = call(client, "/api/match/bot", {"rules": RULES, "state": state})
            assert len(body["game"]["state"]["moves"]) == moves + 1  # one move per request
            assert body["bot"]["seat"] == 1 and body["bot"]["label"]
            game = body["game"]
            continue
        mirror = Match.from_state(model, state)
        seats = game["match"]["seats"]
        assert [s["chance"] for s in seats] == pytest.approx(mirror.chances(), abs=1e-12)
        hint, _ = call(client, "/api/match/hint", {"rules": RULES, "state": state})
        assert hint["objective"] == "win"
        best = hint["options"][0]
        assert best["p_win"] == pytest.approx(seats[0]["chance"], abs=1e-12)
        move = {"keep": best["keep"]} if best["kind"] == "keep" else {"score": best["category"]}
        body, _ = call(client, "/api/match/move", {"rules": RULES, "state": state, "move": move})
        assert body["decision"]["was_best"] and body["decision"]["objective"] == "win"
        game = body["game"]
    review = game["match"]["review"]
    assert review["totals"] == [s["banked"] for s in game["match"]["seats"]]
    assert review["people"][0]["lost_chance"] == 0
    # Undo takes back the person's last decision and the bot's replies after it.
    body, _ = call(client, "/api/match/undo", {"rules": RULES, "state": game["state"]})
    assert not body["game"]["match"]["over"]
    assert body["game"]["match"]["current"] == 0


def test_the_coach_threshold_counts_points_of_the_chance(client):
    body, _ = call(client, "/api/match/new", {"rules": RULES, "seed": 2,
                                              "seats": ["person", "optimal"]})
    state = body["game"]["state"]
    hint, _ = call(client, "/api/match/hint", {"rules": RULES, "state": state})
    worst = hint["options"][-1]
    move = {"keep": worst["keep"]} if worst["kind"] == "keep" else {"score": worst["category"]}
    threshold = 100 * worst["loss"] / 2  # percentage points: half the move's cost
    body, _ = call(client, "/api/match/move", {"rules": RULES, "state": state, "move": move,
                                               "coach_threshold": threshold})
    warning = body["warning"]
    assert warning["objective"] == "win" and warning["loss"] == pytest.approx(worst["loss"])
    assert body["game"]["state"]["moves"] == []  # not played
    body, _ = call(client, "/api/match/move", {"rules": RULES, "state": state, "move": move,
                                               "coach_threshold": threshold, "confirm": True})
    assert not body["decision"]["was_best"]


def test_bad_match_requests_are_refused(client):
    body, _ = call(client, "/api/match/new", {"rules": RULES, "seed": 3,
                                              "seats": ["person", "greedy"], "first": 1})
    state = body["game"]["state"]
    refused, _ = call(client, "/api/match/move", {"rules": RULES, "state": state,
                                                  "move": {"score": "chance"}}, 422)
    assert "not a person's turn" in refused["error"]
    refused, _ = call(client, "/api/match/new", {"rules": RULES, "seats": ["greedy", "win"]},
                      422)
    assert "person" in refused["error"]
    refused, _ = call(client, "/api/match/new", {"rules": RULES, "seats": ["person", "clever"]},
                      422)
    refused, _ = call(client, "/api/match/state", {"rules": RULES, "state": {
        **state, "moves": [{"score": "nowhere"}]}}, 422)
    assert "move 1" in refused["error"]
    refused, _ = call(client, "/api/match/bot", {"rules": RULES, "state": {
        **state, "first": 0}}, 422)
    assert "no bot to move" in refused["error"]
