"""The abuse cases of issue "yz serve safe and usable by anyone", against a real `yz serve`.

    .venv/bin/python bench/bench_web_abuse.py [--skip-long-solve]

Starts `yz serve` (the console script next to this Python) on a free loopback port with an
empty strategy cache, and for each case prints the request, the status, the time and the
server's resident memory (VmRSS) before and after. Every loop is bounded in count and time
and sends traffic to 127.0.0.1 only. The case with a long solve running really solves a
rule set of about 40 s (--skip-long-solve leaves it out). Then, in this process, the cost of
refusing the 60 KB paste of 30,000 list items (time and peak Python memory, tracemalloc).
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_web import Server, load, load_summary, long_solve_running, solved_server

HOSTILE = '<img src=x onerror="window.__pwned=1">'
FLOOD_ITEMS = "a: [" + "1," * 30_000 + "1]\n"  # 60 KB, 30,001 list items
LONG_GAMES = {
    "20 boxes": "name: twenty\nextends: yatzy\ncategories:\n" + "".join(
        f"  - {{key: c{i}, name: C{i}, section: lower, pattern: any, score: sum_all}}\n"
        for i in range(5)),
    "8 dice": "name: eight\nextends: yatzy\ndice: 8\n",
    "7 faces, 5 rolls": "name: seven\nextends: official-free-joker\nfaces: 7\nrolls: 5\n"
                        "dice: 6\n",
}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


ROWS: list[tuple] = []


def row(case: str, request: str, status, seconds: float, before: float, after: float,
        note: str = "") -> None:
    ROWS.append((case, request, status, seconds, before, after, note))
    print(f"{case:<34} {request:<44} {status!s:>9} {seconds * 1000:>9.1f} ms "
          f"{before:>7.1f} {after:>7.1f} MB  {note}", flush=True)


def injection(s: Server) -> None:
    from yz.rules import load_rules

    boxes = "".join(f"  - {{key: {c.key}, name: '{HOSTILE}'}}\n"
                    for c in load_rules("generala").categories)
    hostile = {"yaml": f"name: h\nextends: generala\nrolls: 1\ncategories:\n{boxes}"}
    s.ready(hostile)
    plain = {"yaml": "name: plain\nextends: generala\nrolls: 1\n"}
    before = s.rss
    res, took = s.post("/api/new", {"rules": plain, "seed": 1})
    leaked = "onerror" in res.text
    row("stored script injection", "/api/new plain rules after hostile", res.status_code,
        took, before, s.rss, f"hostile names in the answer: {leaked}")


def yaml_flood(s: Server) -> None:
    before = s.rss
    res, took = s.post("/api/rules", {"rules": {"yaml": FLOOD_ITEMS}})
    row("60 KB paste, 30,000 items", "/api/rules", res.status_code, took, before, s.rss,
        res.json()["error"][:60])
    before = s.rss
    hint_took = []

    def flood(_):
        return s.post("/api/rules", {"rules": {"yaml": FLOOD_ITEMS + f"# {_}\n"}})

    def hint_during():
        game = s.post("/api/new", {"rules": {"variant": "no-bonus"}, "seed": 2})[0].json()
        _, took = s.post("/api/hint", {"rules": {"variant": "no-bonus"},
                                       "state": game["game"]["state"]})
        hint_took.append(took)

    s.ready({"variant": "no-bonus"})
    with ThreadPoolExecutor(41) as pool:
        began = time.perf_counter()
        hint = pool.submit(hint_during)
        results = list(pool.map(flood, range(40)))
        hint.result()
        took = time.perf_counter() - began
    statuses = sorted({r.status_code for r, _ in results})
    row("40 such pastes at once", "40 x /api/rules", statuses, max(t for _, t in results),
        before, s.rss, f"all 40 answered in {took * 1000:.0f} ms; a hint meanwhile "
        f"{hint_took[0] * 1000:.0f} ms")


def long_games(s: Server) -> None:
    for name, text in LONG_GAMES.items():
        before = s.rss
        res, took = s.post("/api/prepare", {"rules": {"yaml": text}})
        body = res.json()
        note = body.get("error", f"accepted, estimate {body.get('estimate_seconds')} s")
        row(f"long solve: {name}", "/api/prepare", res.status_code, took, before, s.rss,
            note[:110])
    before = s.rss
    res, took = s.post("/api/prepare", {"rules": {"variant": "maxi-yatzy-no-saved-rolls"}})
    row("Maxi Yatzy", "/api/prepare", res.status_code, took, before, s.rss,
        res.json()["error"][:90])
    listing = {r["variant"]: r["playable"] for r in s.client.get("/api/variants").json()}
    print(f"   list: maxi-yatzy playable = {listing['maxi-yatzy-no-saved-rolls']}")


def queue_flood(s: Server) -> None:
    before = s.rss
    bodies = [{"rules": {"yaml": f"name: q{i}\nextends: no-bonus\nupper_bonus: "
                         f"{{threshold: {40 + i}, amount: 35}}\n"}} for i in range(30)]
    with ThreadPoolExecutor(30) as pool:
        results = list(pool.map(lambda b: s.post("/api/prepare", b), bodies))
    counts: dict[int, int] = {}
    for res, _ in results:
        counts[res.status_code] = counts.get(res.status_code, 0) + 1
    row("30 different prepares", "30 x /api/prepare", counts, max(t for _, t in results),
        before, s.rss, "unpolled: cancelled after 15 s")


def control_chars(s: Server) -> None:
    for char in ("\x00", "\x01", "\ufffe"):
        before = s.rss
        res, took = s.post("/api/rules", {"rules": {"yaml": f"name: a{char}b\n"}})
        row(f"control character U+{ord(char):04X}", "/api/rules", res.status_code, took,
            before, s.rss, res.json()["error"][:70])


def foreign_host(s: Server) -> None:
    before = s.rss
    began = time.perf_counter()
    res = s.client.get("/api/variants", headers={"host": "evil.example"})
    row("Host: evil.example", "GET /api/variants", res.status_code,
        time.perf_counter() - began, before, s.rss)


def slow_headers(s: Server, n: int = 200) -> None:
    before, fds = s.rss, open_fds(s.proc.pid)
    conns = []
    for _ in range(n):
        c = socket.create_connection(("127.0.0.1", s.port))
        c.sendall(b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        conns.append(c)
    time.sleep(0.5)  # the connections beyond the cap are closed one loop turn later
    peak = open_fds(s.proc.pid)
    began = time.perf_counter()
    res = s.client.get("/api/variants")
    during = time.perf_counter() - began
    closed = [None] * n

    def wait_closed(i: int) -> None:
        conns[i].settimeout(30)
        start = time.perf_counter()
        try:
            while conns[i].recv(1024):
                pass
        except OSError:
            pass
        closed[i] = time.perf_counter() - start

    threads = [threading.Thread(target=wait_closed, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=40)
    for c in conns:
        c.close()
    time.sleep(0.5)
    row(f"{n} unfinished headers", "partial GET, never ended", res.status_code, during,
        before, s.rss, f"server fds {fds} -> {peak} -> {open_fds(s.proc.pid)}; all closed "
        f"within {max(t or 99 for t in closed):.1f} s of the request meanwhile")


def connection_flood(s: Server, n: int = 1000) -> None:
    before, fds = s.rss, open_fds(s.proc.pid)
    conns, refused = [], 0
    for _ in range(n):
        try:
            conns.append(socket.create_connection(("127.0.0.1", s.port), timeout=2))
        except OSError:
            refused += 1
    time.sleep(0.5)
    peak = open_fds(s.proc.pid)
    for c in conns:
        c.close()
    time.sleep(0.5)
    began = time.perf_counter()
    res = s.client.get("/api/variants")
    row(f"{n} idle connections", "connect, send nothing", res.status_code,
        time.perf_counter() - began, before, s.rss,
        f"server fds {fds} -> {peak} (refused at connect: {refused}); after: "
        f"{open_fds(s.proc.pid)}")


def cached_behind_a_long_solve(cache: str) -> None:
    s = solved_server(cache)
    try:
        with long_solve_running(s) as estimate:
            before = s.rss
            res, took = s.post("/api/new", {"rules": {"variant": "official-free-joker"}})
            row("cached game after restart,", "/api/new official (first request)",
                res.status_code, took, before, s.rss, f"a {estimate} s solve running")
            times, statuses = load(s)
            row("load: 200 cached, 20 at once,", "prepare/state/hint/move", statuses,
                times[-1], before, s.rss, load_summary(times))
    finally:
        s.stop()


def refusal_cost() -> None:
    from yz.rules import RulesError
    from yz.rules.loader import parse_yaml
    from yz.web.settings import MAX_YAML_DEPTH, MAX_YAML_NODES

    def refuse():
        try:
            parse_yaml(FLOOD_ITEMS, "<pasted rules>", "rule set", RulesError,
                       max_nodes=MAX_YAML_NODES, max_depth=MAX_YAML_DEPTH)
        except RulesError:
            return
        raise AssertionError("not refused")

    refuse()
    times = []
    for _ in range(20):
        began = time.perf_counter()
        refuse()
        times.append(time.perf_counter() - began)
    tracemalloc.start()
    refuse()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nrefusing the {len(FLOOD_ITEMS):,}-byte paste of 30,001 items (the web's reader): "
          f"best {min(times) * 1000:.2f} ms, median {sorted(times)[10] * 1000:.2f} ms, "
          f"peak Python memory {peak / 2**20:.2f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-long-solve", action="store_true")
    args = parser.parse_args()
    print(f"{'case':<34} {'request':<44} {'status':>9} {'time':>12} {'RSS before':>7} "
          "after")
    with tempfile.TemporaryDirectory(prefix="yz-abuse-") as cache:
        s = Server(cache)
        try:
            for case in (injection, control_chars, foreign_host, yaml_flood, slow_headers,
                         connection_flood, long_games, queue_flood):  # solves started last
                case(s)
            time.sleep(20)  # past the 15 s after which an unpolled solve is cancelled
            cpu = cpu_seconds(s.proc.pid)
            time.sleep(3)
            print(f"server RSS at the end: {s.rss:.1f} MB; CPU used in 3 s of quiet, 20 s "
                  f"after the last poll of any solve: {cpu_seconds(s.proc.pid) - cpu:.2f} s "
                  "(the unpolled solves were cancelled)")
        finally:
            s.stop()
    if not args.skip_long_solve:
        with tempfile.TemporaryDirectory(prefix="yz-abuse-") as cache:
            cached_behind_a_long_solve(cache)
    refusal_cost()


if __name__ == "__main__":
    main()
