"""A whole game of Maxi Yatzy (or VARIANT) on the web page of a real `yz serve --store
VARIANT=STORE` process, in Debian's chromium: hints, a coach warning, an undo and the review,
checked against a twin `Game` over the store's values; and how fast the page answers: from the
click that makes a move (Roll or a box) to the move drawn, from Hint to the hints drawn, and
each API request as the browser saw it:

    .venv/bin/python bench/bench_store_play_web.py maxi-store [SEED] [VARIANT]

Screenshots (store-web-*.png) go to the current folder."""
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser_support import ARGS, CHROMIUM, hold, press
from playwright.sync_api import sync_playwright
from yz.solver import Model
from yz.solver.coach import Game

STORE = sys.argv[1]
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 7
VARIANT = sys.argv[3] if len(sys.argv) > 3 else "maxi-yatzy"
PORT = 8799
OUT = "."
model = Model(VARIANT)
solution = model.store_solution(STORE)
log = Path(OUT, "serve.err").open("w")  # noqa: SIM115 (open while the server runs)
proc = subprocess.Popen([str(Path(sys.executable).with_name("yz")), "serve", "--port", str(PORT),
                         "--store", f"{VARIANT}={STORE}"], stderr=log, start_new_session=True)
url = f"http://127.0.0.1:{PORT}"
moves, hints = [], []
try:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = b.new_page(viewport={"width": 1300, "height": 1000})
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        api = {}
        page.on("requestfinished", lambda r: api.setdefault(r.url.split("/api/")[-1], []).append(
            r.timing["responseEnd"]) if "/api/" in r.url else None)
        for _ in range(100):
            try:
                page.goto(url + "/")
                break
            except Exception:
                time.sleep(0.3)
        page.wait_for_selector("body[data-ready='1']")
        opt = f"#variant option[value='{VARIANT}']"
        print("list:", page.inner_text(opt), "disabled:",
              page.eval_on_selector(opt, "o => o.disabled"))
        page.screenshot(path=f"{OUT}/store-web-list.png", full_page=True)
        page.select_option("#variant", VARIANT)
        page.fill("#seed", str(SEED))
        t = time.perf_counter()
        page.click("#new-game")
        page.wait_for_selector("#dice .die", timeout=60_000)
        print(f"new game drawn in {time.perf_counter() - t:.2f} s")
        hinted = warned = undone = False
        n = 0
        while True:
            game = Game.from_state(solution, page.evaluate("window.yz.game.state"))
            if game.over:
                break
            options = game.options()
            n += 1
            if n % 7 == 2:
                t = time.perf_counter()
                page.click("#hint")
                page.wait_for_selector("#hints:not([hidden]) tbody tr")
                hints.append(time.perf_counter() - t)
                cells = [c.inner_text() for c in
                         page.query_selector_all("#hints tbody tr")[0].query_selector_all("td")]
                best = f"{game.banked + options[0].value:.2f}"
                assert cells[1] == best and cells[2] == "0.00", cells
                if not hinted:
                    page.screenshot(path=f"{OUT}/store-web-hint.png", full_page=True)
                hinted = True
            worst = options[-1]
            if not warned and n > 5 and options[0].value - worst.value > 2:
                page.fill("#threshold", "2")
                before = page.evaluate("window.yz.game.state.moves.length")
                press(page, worst)
                page.wait_for_selector("#warning:not([hidden])")
                print("warning:", page.inner_text("#warning").replace("\n", " ")[:300])
                page.screenshot(path=f"{OUT}/store-web-warning.png", full_page=True)
                page.click("#warn-change")
                assert page.evaluate("window.yz.game.state.moves.length") == before
                page.fill("#threshold", "")
                warned = True
                continue
            pick = options[1] if n % 5 == 0 and len(options) > 1 else options[0]
            before = page.evaluate("window.yz.game.state.moves.length")
            if pick.kind == "score":  # (timed from the click that makes the move)
                t = time.perf_counter()
                page.click(f"#card tr[data-box='{pick.box.key}']")
            else:
                hold(page, pick.keep)
                t = time.perf_counter()
                page.click("#roll")
            page.wait_for_function(f"() => window.yz.game.state.moves.length === {before + 1}"
                                   " && !window.yz.busy")
            moves.append(time.perf_counter() - t)
            if not undone and n >= 10:
                page.click("#undo")
                page.wait_for_function(f"() => window.yz.game.state.moves.length === {before}")
                undone = True
        assert hinted and warned and undone
        page.wait_for_selector("#review:not([hidden])")
        assert int(page.inner_text("#final-total")) == game.banked
        review = page.inner_text("#review")
        assert f"{game.lost():.2f}" in review, review
        print("review:", review.replace("\n", " | ")[:600])
        page.screenshot(path=f"{OUT}/store-web-review.png", full_page=True)
        assert not errors, errors
        for name, ms in sorted(api.items()):
            print(f"/api/{name}: {len(ms)} requests, median {statistics.median(ms):.0f} ms, "
                  f"max {max(ms):.0f} ms (request start to response end, as the browser saw it)")
        b.close()
finally:
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
print(f"moves {len(moves)}: click to drawn median {statistics.median(moves)*1000:.0f} ms, "
      f"max {max(moves)*1000:.0f} ms; hints {len(hints)}: median "
      f"{statistics.median(hints)*1000:.0f} ms, max {max(hints)*1000:.0f} ms")
