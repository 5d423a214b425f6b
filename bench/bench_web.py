"""Latency of `yz serve` with a cached strategy: page load, hints and moves, over real HTTP.

    .venv/bin/python bench/bench_web.py [--variant official-free-joker] [--repeat 30]

Starts the app under uvicorn on a free port in this process (one worker thread, as `yz serve`),
solves the rule set first if the cache does not hold it (not timed), then times each request
kind `--repeat` times: the page (HTML, CSS, JS and the variant list, as a browser loads it),
`/api/prepare` once ready (it carries the exact distribution), `/api/new`, and `/api/hint` and
`/api/move` early in a game and late in one (the server replays every move of the game, so a
late request does the most work). The first request of each kind is shown apart: it fills the
per-position memo. The target is < 200 ms per request.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import threading
import time


def main() -> None:
    import httpx
    import uvicorn
    from yz.web.app import create_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="official-free-joker")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    rules = {"variant": args.variant}
    client = httpx.Client(base_url=base, timeout=600)

    began = time.perf_counter()
    while client.post("/api/prepare", json={"rules": rules}).json()["status"] != "ready":
        time.sleep(0.5)
    print(f"{args.variant}: ready after {time.perf_counter() - began:.2f} s "
          "(solve or cache load, not timed below)")

    game = client.post("/api/new", json={"rules": rules, "seed": 7}).json()["game"]
    early = game["state"]
    late = early
    while game["phase"] != "over" and len(game["state"]["moves"]) < 30:
        hint = client.post("/api/hint", json={"rules": rules, "state": game["state"]}).json()
        best = hint["options"][0]
        move = {"keep": best["keep"]} if best["kind"] == "keep" else {"score": best["box"]}
        game = client.post("/api/move", json={"rules": rules, "state": game["state"],
                                              "move": move}).json()["game"]
        late = game["state"]

    def best_move(state):
        hint = client.post("/api/hint", json={"rules": rules, "state": state}).json()
        o = hint["options"][0]
        return {"keep": o["keep"]} if o["kind"] == "keep" else {"score": o["box"]}

    early_move, late_move = best_move(early), best_move(late)

    def page() -> None:
        for path in ("/", "/static/style.css", "/static/app.js", "/api/variants"):
            client.get(path).raise_for_status()

    kinds = {
        "page load (4 GETs)": page,
        "/api/prepare (ready)": lambda: client.post("/api/prepare", json={"rules": rules}),
        "/api/new": lambda: client.post("/api/new", json={"rules": rules, "seed": 1}),
        "/api/hint, move 1": lambda: client.post("/api/hint",
                                                 json={"rules": rules, "state": early}),
        f"/api/hint, move {len(late['moves']) + 1}": lambda: client.post(
            "/api/hint", json={"rules": rules, "state": late}),
        "/api/move, move 1": lambda: client.post("/api/move", json={
            "rules": rules, "state": early, "move": early_move}),
        f"/api/move, move {len(late['moves']) + 1}": lambda: client.post("/api/move", json={
            "rules": rules, "state": late, "move": late_move}),
    }
    print(f"{'request':<24} {'first ms':>9} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    for name, call in kinds.items():
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = call()
            times.append(1000 * (time.perf_counter() - t0))
            if res is not None:
                res.raise_for_status()
        rest = sorted(times[1:]) or times
        p95 = rest[min(len(rest) - 1, int(0.95 * len(rest)))]
        print(f"{name:<24} {times[0]:9.1f} {statistics.median(rest):10.1f} {p95:8.1f} "
              f"{max(rest):8.1f}")
    server.should_exit = True


if __name__ == "__main__":
    main()
