"""Whole games played from a store (`yz play --store`, `yz serve --store`): in a real terminal
(a pseudo-terminal, typed answers) and on the web page in Chromium, each with a hint, a coach
warning, an undo and the end-of-game review. The game is a small one with saved rolls whose
store is built here; a twin `Game` over the one-process solve's values follows every move and
checks what the player is shown."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest
from test_layered import VARIANTS
from test_terminal import ANSI, default_sigint, yz_command

HANG_GUARD = 60.0  # seconds to wait for any one answer; only catches a hang
SEED = 11
THRESHOLD = 2.0  # the coach's threshold, points


@pytest.fixture(scope="module")
def game_files(tmp_path_factory):
    """The rule file of a small game with saved rolls and a finished store of it, and the
    one-process solve's values."""
    from yz.rules import rules_from_text
    from yz.solver import Model
    from yz.solver.layered import solve_layered

    folder = tmp_path_factory.mktemp("store-game")
    rules = folder / "saved.yaml"
    rules.write_text(VARIANTS["carried"])
    model = Model(rules_from_text(VARIANTS["carried"]), use_cache=False, threads=1)
    solve_layered(model.problem, folder / "store", chunk_states=100)
    return rules, folder / "store", model.solve()


def answer_for(option) -> str:
    if option.kind == "score":
        return option.box.key
    return " ".join(map(str, option.keep)) if option.keep else "none"


# ---------------------------------------------------------------- the terminal


class Terminal:
    """`yz ARGS` on a pseudo-terminal: read what it shows, type answers."""

    def __init__(self, args: list[str], env: dict):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, **env, "COLUMNS": "120", "LINES": "40", "TERM": "xterm-256color"}
        self.proc = subprocess.Popen([*yz_command(), *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True,
                                     start_new_session=True, preexec_fn=default_sigint)
        os.close(slave)
        self.raw, self.at = b"", 0

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode(errors="replace")).replace("\r\n", "\n")

    def expect(self, pattern: str) -> re.Match:
        """Wait for `pattern` in what is shown after the last match; the match."""
        deadline = time.monotonic() + HANG_GUARD
        while True:
            found = re.compile(pattern).search(self.text, self.at)
            if found:
                self.at = found.end()
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} after {HANG_GUARD} s:\n{self.text[-3000:]}"
            if select.select([self.master], [], [], min(left, 0.5))[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # Linux: EIO once the child has closed the pty
                    chunk = b""
                assert chunk, f"yz ended before {pattern!r}:\n{self.text[-3000:]}"
                self.raw += chunk

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=HANG_GUARD)
        finally:
            os.close(self.master)
            if self.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


PROMPT = r"dice ([\d ]+?)  \((?:\d+ re-rolls? left|last roll)\)  (?:keep or box|box)> "


def test_a_whole_game_from_a_store_in_a_terminal(game_files, tmp_path):
    from yz.solver.coach import Game

    rules, store, solution = game_files
    twin = Game(solution, SEED)
    term = Terminal(["play", "--variant", str(rules), "--store", str(store), "--seed",
                     str(SEED), "--coach-threshold", f"{THRESHOLD:g}"],
                    {"YZ_CACHE_DIR": str(tmp_path / "cache")})
    try:
        average = term.expect(r"optimal play averages ([\d.]+) \(values read from (.+?)\)\.")
        assert float(average[1]) == pytest.approx(solution.expected_score, abs=0.005)
        hinted = warned = undone = False
        n = 0
        while not twin.over:
            shown = term.expect(PROMPT)
            assert shown[1] == " ".join(map(str, twin.dice)), term.text[-2000:]
            options = twin.options()
            n += 1
            if not hinted:  # every option, best first, as the advisor ranks them
                term.send("hint")
                term.expect(r"expected final  loss    move\n")
                first = term.expect(r" *([\d.]+) +([\d.]+)  (.+?)\n")
                assert first[1] == f"{twin.banked + options[0].value:.2f}"
                assert first[3].startswith(options[0].label())
                hinted = True
                continue
            worst = options[-1]
            if not warned and options[0].value - worst.value > THRESHOLD:
                term.send(answer_for(worst))  # the coach steps in; the player thinks again
                loss = options[0].value - worst.value
                term.expect(rf"coach: .+ costs {loss:.2f} points of expected final score, "
                            rf"more than your coach threshold of {THRESHOLD:g} points; the "
                            r"best is .+\.")
                term.expect(r"play it anyway\? \[y/N\]> ")
                term.send("n")
                warned = True
                continue
            pick = options[1] if n % 4 == 0 and len(options) > 1 and \
                options[0].value - options[1].value <= THRESHOLD else options[0]
            term.send(answer_for(pick))
            decision = twin.play({"score": pick.box.key} if pick.kind == "score"
                                 else {"keep": list(pick.keep)})
            term.expect("best move" if decision.was_best else
                        rf"not the best: .+ cost {decision.loss:.2f} points\.")
            if not undone and n >= 6 and not twin.over:
                term.expect(PROMPT)
                term.send("undo")
                term.expect(r"took back the last decision: turn (\d+)\.")
                twin.undo()
                undone = True
        assert hinted and warned and undone
        total = term.expect(r"total (\d+) \(optimal play averages ([\d.]+)\)")
        assert int(total[1]) == twin.banked
        term.expect(rf"your decisions cost {twin.lost():.2f} ")
        term.expect(rf"decisions: {len(twin.log)}, {sum(d.was_best for d in twin.log)} of "
                    "them best")
        term.expect("worst decisions:" if twin.worst() else "every decision was a best one")
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.close()
    assert "Traceback" not in term.text
    assert "P(score <=" not in term.text  # (no exact distribution from a store)
    (tmp_path / "terminal.txt").write_text(term.text)


# ---------------------------------------------------------------- the web page


def test_the_web_api_plays_a_stored_rule_set_at_once(game_files, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from yz.rules import RulesError
    from yz.solver.layered import StoreError
    from yz.web.app import create_app
    from yz.web.settings import WebSettings

    rules, store, solution = game_files
    settings = WebSettings(stores=((str(rules), str(store)),))
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765") as c:
        rows = {r["variant"]: r for r in c.get("/api/variants").json()}
        assert rows["layered-test"]["playable"] and rows["layered-test"]["store"]
        assert not rows["no-bonus"]["store"]
        ref = {"rules": {"variant": "layered-test"}}
        ready = c.post("/api/prepare", json=ref).json()
        assert ready["status"] == "ready" and ready["distribution"] is None
        assert ready["expected_score"] == solution.expected_score
        assert ready["rules"]["from_store"] and not ready["rules"]["has_distribution"]
        # The same rules pasted are the same game: its values come from the store too.
        pasted = c.post("/api/prepare", json={"rules": {"yaml": rules.read_text()}}).json()
        assert pasted["status"] == "ready" and pasted["rules"]["from_store"]
        game = c.post("/api/new", json={**ref, "seed": SEED}).json()["game"]
        hint = c.post("/api/hint", json={**ref, "state": game["state"]}).json()
        from yz.solver.coach import Game

        twin = Game(solution, SEED)
        assert [o["label"] for o in hint["options"]] == [o.label() for o in twin.options()]
        assert [o["expected_final"] for o in hint["options"]] == \
            [twin.banked + o.value for o in twin.options()]
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(VARIANTS["plain"].replace("layered-test", "plain-test"))
    with pytest.raises(StoreError, match="holds a solve of other rules"):
        create_app(WebSettings(stores=((str(wrong), str(store)),)))
    named = tmp_path / "named.yaml"
    named.write_text(VARIANTS["carried"].replace("layered-test", "yatzy"))
    with pytest.raises(RulesError, match="names its rule set 'yatzy', as a built-in is named"):
        create_app(WebSettings(stores=((str(named), str(store)),)))


@pytest.fixture
def store_server(game_files):
    """`yz serve --store RULES=FOLDER`'s server (the command's own settings) on a free port."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from conftest import serving
    from yz.cli.play_cmd import serve_settings

    rules, store, _ = game_files
    with serving(serve_settings("127.0.0.1", [], 60.0, [f"{rules}={store}"])) as url:
        yield url


def test_a_whole_game_from_a_store_in_the_browser(store_server, browser, game_files, tmp_path):
    pytest.importorskip("playwright.sync_api")
    from browser_support import CHROMIUM, press, shot
    from test_web_browser import click_move, moves_made
    from yz.solver.coach import Game

    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    _, _, solution = game_files
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(store_server + "/")
    page.wait_for_selector("body[data-ready='1']")
    option = "#variant option[value='layered-test']"
    assert not page.eval_on_selector(option, "o => o.disabled")
    assert page.inner_text(option) == "layered-test (7 boxes, from a store)"
    # Too big to solve here: the visible text says how to make a store and how long it takes.
    notes = page.inner_text("#unplayable")
    assert re.search(r"maxi-yatzy: .* make a store of its values once: yz solve --variant "
                     r"maxi-yatzy --store FOLDER --no-sd --yes \(about [\d.]+ (hours|minutes) "
                     r"here\), "
                     r"then yz serve --store maxi-yatzy=FOLDER\.", notes), notes
    shot(page, tmp_path, "serve-store-list.png")

    page.select_option("#variant", "layered-test")
    page.fill("#seed", str(SEED))
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=60_000)
    hinted = warned = undone = False
    n = 0
    while True:
        game = Game.from_state(solution, page.evaluate("window.yz.game.state"))
        if game.over:
            break
        options = game.options()
        n += 1
        if not hinted:
            page.click("#hint")
            page.wait_for_selector("#hints:not([hidden]) tbody tr")
            cells = [c.inner_text() for c in
                     page.query_selector_all("#hints tbody tr")[0].query_selector_all("td")]
            assert cells[1] == f"{game.banked + options[0].value:.2f}" and cells[2] == "0.00"
            shot(page, tmp_path, "serve-store-hint.png")
            hinted = True
        worst = options[-1]
        if not warned and options[0].value - worst.value > 0.5:
            page.fill("#threshold", "0.5")
            before = moves_made(page)
            press(page, worst)
            page.wait_for_selector("#warning:not([hidden])")
            assert "more than your coach threshold of 0.5 points" in page.inner_text("#warning")
            shot(page, tmp_path, "serve-store-warning.png")
            page.click("#warn-change")
            assert moves_made(page) == before
            page.fill("#threshold", "")
            warned = True
            continue
        pick = options[1] if n % 4 == 0 and len(options) > 1 else options[0]
        click_move(page, game, pick)
        if not undone and n >= 6:
            page.click("#undo")
            page.wait_for_function(f"() => window.yz.game.state.moves.length < "
                                   f"{len(game.moves) + 1}")
            undone = True
    assert hinted and warned and undone
    page.wait_for_selector("#review:not([hidden])")
    assert int(page.inner_text("#final-total")) == game.banked
    review = page.inner_text("#review")
    assert f"{game.lost():.2f}" in review
    assert page.is_visible("#chart-note") and page.is_hidden("#chart")
    assert "played from a store of its values" in page.inner_text("#chart-note")
    # The heading does not promise what is not shown.
    assert "not computed" in page.inner_text("#dist-title")
    assert "exact distribution, optimal play" not in page.inner_text("#dist-title")
    # A command in the notes breaks only between words, never inside one.
    wrap = page.eval_on_selector("#unplayable li", "li => getComputedStyle(li).overflowWrap")
    assert wrap == "break-word", wrap
    shot(page, tmp_path, "serve-store-review.png")
    assert not errors, errors
