"""Latency of `yz serve` with a cached strategy: page load, hints and moves, over real HTTP.

    .venv/bin/python bench/bench_web.py [--variant official-free-joker] [--repeat 30]

Starts the app under uvicorn on a free port in this process (one worker thread, as `yz serve`),
solves the rule set first if the cache does not hold it (not timed), then times each request
kind `--repeat` times: the page (HTML, CSS, JS and the variant list, as a browser loads it),
`/api/prepare` once ready (it carries the exact distribution), `/api/new`, and `/api/hint` and
`/api/move` early in a game and late in one (the server replays every move of the game, so a
late request does the most work). The first request of each kind is shown apart: it fills the
per-position memo. The target is < 200 ms per request.

    .venv/bin/python bench/bench_web.py --load

starts `yz serve` (the console script beside this Python) on a free loopback port, with the
official rules in its cache (as after a restart) and a real solve of about 40 s running on its
one solver thread, and sends 200 requests for the official rules, 20 at a time (prepare,
state, hint, move): their median, p95 and slowest time. The target is every one < 1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

LONG_SOLVE = "name: long\nextends: official-free-joker\ndice: 8\n"  # about 40 s here


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Server:
    """A `yz serve` process on a free port, with its own cache folder."""

    def __init__(self, cache: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        yz = Path(sys.executable).with_name("yz")
        env = dict(os.environ, YZ_CACHE_DIR=cache)
        self.proc = subprocess.Popen([str(yz), "serve", "--port", str(self.port)], env=env,
                                     stderr=subprocess.PIPE, text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self.client = httpx.Client(base_url=self.base, timeout=120)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client.get("/api/variants").raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and self.proc.poll() is None
                time.sleep(0.2)

    @property
    def rss(self) -> float:
        return rss_mb(self.proc.pid)

    def post(self, path: str, body: dict | None = None, **kwargs):
        began = time.perf_counter()
        res = self.client.post(path, json=body, **kwargs)
        return res, time.perf_counter() - began

    def ready(self, rules: dict, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while self.post("/api/prepare", {"rules": rules})[0].json().get("status") != "ready":
            assert time.monotonic() < deadline
            time.sleep(0.3)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def load(s: Server, total: int = 200, parallel: int = 20) -> tuple[list[float], list[int]]:
    """`total` requests for the cached official rules, `parallel` at a time: their times
    (sorted) and the statuses met."""
    rules = {"variant": "official-free-joker"}
    game = s.post("/api/new", {"rules": rules, "seed": 5})[0].json()["game"]
    state = {"rules": rules, "state": game["state"]}
    kinds = [("/api/prepare", {"rules": rules}), ("/api/state", state), ("/api/hint", state),
             ("/api/move", {**state, "move": {"keep": []}})]
    with ThreadPoolExecutor(parallel) as pool:
        results = list(pool.map(lambda i: s.post(*kinds[i % len(kinds)]), range(total)))
    return sorted(t for _, t in results), sorted({r.status_code for r, _ in results})


def load_summary(times: list[float]) -> str:
    n = len(times)
    return (f"median {times[n // 2] * 1000:.0f} ms, p95 {times[int(n * .95)] * 1000:.0f} ms, "
            f"max {times[-1] * 1000:.0f} ms, over 1 s: {sum(t > 1 for t in times)}")


def solved_server(cache: str) -> Server:
    """A `yz serve` started on a cache that already holds the official rules (as after a
    restart)."""
    from yz.solver import Model

    os.environ["YZ_CACHE_DIR"] = cache
    Model("official-free-joker").distribution()
    return Server(cache)


@contextlib.contextmanager
def long_solve_running(s: Server):
    """A real solve of about 40 s on the server's one solver thread, polled (so it is not
    cancelled) until the block ends; yields its estimated seconds."""
    res, _ = s.post("/api/prepare", {"rules": {"yaml": LONG_SOLVE}})
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(1):
            s.post("/api/prepare", {"rules": {"yaml": LONG_SOLVE}})

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(3)  # well into the solve
    try:
        yield res.json().get("estimate_seconds")
    finally:
        stop.set()
        poller.join()


def main_load() -> None:
    with tempfile.TemporaryDirectory(prefix="yz-load-") as cache:
        s = solved_server(cache)
        try:
            with long_solve_running(s) as estimate:
                before = s.rss
                times, statuses = load(s)
                print(f"200 requests for the cached official rules, 20 at once, a {estimate} s "
                      f"solve running: statuses {statuses}; {load_summary(times)}; server RSS "
                      f"{before:.0f} -> {s.rss:.0f} MB")
        finally:
            s.stop()


def main() -> None:
    if "--load" in sys.argv[1:]:
        main_load()
        return
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
