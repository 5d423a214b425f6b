"""`yz serve` as a real server on loopback: slow and idle connections, a connection flood,
the port already taken. Raw sockets, so nothing is hidden by an HTTP client."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from yz.rules import InputError
from yz.web.server import bind, make_server
from yz.web.settings import WebSettings

HANG_GUARD = 30  # seconds: a test that waits longer has hung


@pytest.fixture
def running():
    """Start a server with short deadlines on a free loopback port; yield (address, settings)."""
    servers = []

    def start(**limits):
        settings = WebSettings(**{"request_deadline": 1.0, **limits})
        sock = bind("127.0.0.1", 0)
        server = make_server(settings)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + HANG_GUARD
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        servers.append((server, thread))
        return sock.getsockname()[:2]

    start.servers = servers
    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=HANG_GUARD)


def closed_by_server(conn: socket.socket) -> bool:
    """Wait (at most the hang guard) for the server to close the connection."""
    conn.settimeout(HANG_GUARD)
    try:
        return conn.recv(1024) == b""
    except ConnectionResetError:
        return True


def get(address, path: str = "/api/variants", host: str = "127.0.0.1",
        origin: str | None = None) -> bytes:
    with socket.create_connection(address, timeout=HANG_GUARD) as conn:
        extra = f"Origin: {origin}\r\n" if origin else ""
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"
                     .encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_whose_headers_never_end_is_closed(running):
    address = running()
    with socket.create_connection(address) as conn:
        conn.sendall(b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line
        began = time.monotonic()
        for _ in range(3):  # a header line now and then does not keep it open
            time.sleep(0.3)
            conn.sendall(b"X-Slow: 1\r\n")
        assert closed_by_server(conn)
    assert time.monotonic() - began < HANG_GUARD
    assert get(address).startswith(b"HTTP/1.1 200")  # the server still serves


def test_a_connection_that_sends_nothing_is_closed(running):
    address = running()
    with socket.create_connection(address) as conn:
        assert closed_by_server(conn)


def test_a_body_that_never_arrives_is_closed(running):
    address = running()
    with socket.create_connection(address) as conn:
        conn.sendall(b"POST /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"ru")
        assert closed_by_server(conn)


def test_a_kept_alive_connection_gets_a_deadline_per_request(running):
    address = running()
    with socket.create_connection(address) as conn:
        conn.sendall(b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        conn.settimeout(HANG_GUARD)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        conn.sendall(b"GET /api/variants HTTP/1.1\r\n")  # the next request, never finished
        data = b""
        while True:  # the rest of the first answer, then the close
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk


def test_a_new_connection_beyond_the_cap_closes_the_oldest_waiting_one(running):
    # (A deadline far beyond the test's own time: on a busy machine the idle connections
    # must not expire before they are looked at; the cap is what this test is about.)
    address = running(max_connections=4, request_deadline=30.0)
    idle = [socket.create_connection(address) for _ in range(4)]
    try:
        time.sleep(0.2)  # accepted, in order
        # A client with a real request still gets in: the oldest idle connection makes room.
        assert get(address).startswith(b"HTTP/1.1 200")
        assert closed_by_server(idle[0])
        for conn in idle[1:]:  # the others are untouched
            conn.setblocking(False)
            with pytest.raises(BlockingIOError):
                conn.recv(1)
    finally:
        for conn in idle:
            conn.close()


def test_a_flood_of_connections_stays_within_the_cap(running):
    address = running(max_connections=4, request_deadline=5.0)
    server = running.servers[-1][0]
    flood = [socket.create_connection(address) for _ in range(100)]  # in one loop turn or few
    try:
        time.sleep(0.3)
        assert len(server.server_state.connections) <= 4
        assert get(address).startswith(b"HTTP/1.1 200")
    finally:
        for conn in flood:
            conn.close()


def test_a_foreign_host_is_refused_by_the_real_server(running):
    address = running()
    answer = get(address, host="evil.example")
    assert answer.startswith(b"HTTP/1.1 421") and b"not a name of this server" in answer


def test_an_origin_on_another_port_is_refused_by_the_real_server(running):
    address = running()
    host = f"127.0.0.1:{address[1]}"
    for origin in (f"http://127.0.0.1:{address[1]}", f"http://localhost:{address[1]}"):
        assert get(address, host=host, origin=origin).startswith(b"HTTP/1.1 200"), origin
    other = f"http://localhost:{address[1] + 1 if address[1] < 65535 else 1234}"
    answer = get(address, host=host, origin=other)
    assert answer.startswith(b"HTTP/1.1 403") and other.encode() in answer
    # A sandboxed or local-file page's requests say `Origin: null`: not this server's page
    # (whose own requests carry its origin: its referrer policy is same-origin).
    assert get(address, host=host, origin="null").startswith(b"HTTP/1.1 403")


def test_a_port_in_use_is_one_line_naming_it():
    taken = bind("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(InputError, match=rf"^port: {port} on 127.0.0.1 is already in use"):
            bind("127.0.0.1", port)
    finally:
        taken.close()


def test_yz_serve_on_a_port_in_use_exits_2_naming_the_option():
    from typer.testing import CliRunner
    from yz.cli.main import app

    taken = bind("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    finally:
        taken.close()
    assert result.exit_code == 2
    assert f"error: --port: {port} on 127.0.0.1 is already in use" in result.output
    assert "Traceback" not in result.output


def test_cached_games_are_answered_while_a_long_solve_runs(running, monkeypatch):
    """A bounded load on loopback: 200 requests for a cached rule set, 20 at a time, while the
    one solver thread is busy with another rule set. Every answer must come (a generous hang
    guard; the latency is measured by bench/bench_web.py --load)."""
    import json
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from yz.solver import Model

    cached = {"variant": "no-bonus"}
    Model("no-bonus").distribution()  # in the disk cache
    release = threading.Event()
    real_compute = Model._compute

    def long_solve(model, with_sd=False):  # holds the solver thread until released
        with model.report.stage("solving", "states") as step:
            while not release.wait(0.05):
                step(0, 1)
        return real_compute(model, with_sd)

    monkeypatch.setattr(Model, "_compute", long_solve)
    address = running(request_deadline=10.0)
    base = f"http://{address[0]}:{address[1]}"

    def post(path: str, body: dict) -> tuple[int, dict]:
        req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=HANG_GUARD) as res:
            return res.status, json.load(res)

    try:
        assert post("/api/prepare", {"rules": {"variant": "gist"}})[1]["status"] == "solving"
        game = post("/api/new", {"rules": cached, "seed": 9})[1]["game"]
        state = {"rules": cached, "state": game["state"]}
        kinds = [("/api/prepare", {"rules": cached}), ("/api/state", state),
                 ("/api/hint", state), ("/api/move", {**state, "move": {"keep": []}}),
                 ("/api/prepare", {"rules": {"variant": "gist"}})]  # the long solve, polled

        def one(i: int) -> int:
            status, body = post(*kinds[i % len(kinds)])
            if i % len(kinds) == len(kinds) - 1:
                assert body["status"] == "solving"
            return status

        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(one, range(200), timeout=HANG_GUARD * 4))
        assert statuses == [200] * 200
    finally:
        release.set()


def test_yz_serve_passes_its_options_to_the_server(monkeypatch):
    from typer.testing import CliRunner
    from yz.cli.main import app
    from yz.web import server

    seen = {}

    def fake_serve(settings, sock, on_start, report=None):
        seen["settings"] = settings
        seen["address"] = sock.getsockname()
        on_start("http://127.0.0.1:1/")
        sock.close()

    monkeypatch.setattr(server, "serve", fake_serve)
    result = CliRunner().invoke(app, ["serve", "--port", "0", "--max-solve-seconds", "5",
                                      "--allow-host", "yz.lan", "--allow-host", "box",
                                      "--store", "maxi-yatzy=maxi store", "--store",
                                      "rules.yaml=/s/r"])
    assert result.exit_code == 0, result.output
    settings = seen["settings"]
    assert settings.max_solve_seconds == 5.0
    assert {"127.0.0.1", "localhost", "::1", "yz.lan", "box"} <= set(settings.hosts)
    assert settings.offline_command.format(rules="x.yaml") == "yz play --variant x.yaml"
    assert settings.stores == (("maxi-yatzy", "maxi store"), ("rules.yaml", "/s/r"))
    assert settings.store_command.format(rules="x", time="1 hour") == (
        "yz solve --variant x --store FOLDER --no-sd --yes (about 1 hour here), then yz serve "
        "--store x=FOLDER")
    bad = CliRunner().invoke(app, ["serve", "--port", "0", "--store", "maxi-yatzy"])
    assert bad.exit_code == 2 and "--store: 'maxi-yatzy' is not VARIANT=FOLDER" in bad.output
    assert seen["address"][0] == "127.0.0.1"
    assert "yz serve: open http://127.0.0.1:1/" in result.output


def test_the_web_library_never_names_a_command_line_option():
    import re

    from yz.web import app, guards, rulesets, server, settings, solving

    for module in (app, guards, rulesets, server, settings, solving):
        text = Path(module.__file__).read_text()
        assert not re.search(r"--[a-z]", text.replace("---", "")), module.__name__


def test_a_solves_shown_progress_never_goes_back():
    """Whatever order its stages report in (a stage estimated long, then the next one, or a
    compile after the solve), the percentage shown only grows and the time left only falls."""
    from yz.solver import Model
    from yz.web.solving import Job

    job = Job(Model("no-bonus", use_cache=False), solve_estimate=3.5, distribution_estimate=6.5,
              compile_estimate=5.0, last_polled=time.monotonic())
    shown = []
    for stage, done, total in [("compiling", 0, None), ("solving", 1, 10), ("solving", 9, 10),
                               ("compiling", 0, None), ("solving", 2, 10),
                               ("distribution", 1, 10), ("distribution", 10, 10)]:
        job.report(stage, done, total)
        view = job.view(0)
        shown.append((view["percent"], -view["eta_seconds"]))
    assert shown == sorted(shown), shown
    assert shown[-1][0] == 100.0
