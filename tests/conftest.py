"""Shared fixtures: every test gets its own empty strategy cache, or, in a module that sets
`SHARE_CACHE = True` or for a test marked `share_cache`, one cache for the whole module; the
browser tests' server and chromium."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

import pytest

# numba's threads (its OpenMP layer) wait for the next parallel loop by spinning, libgomp's
# default: with two test processes on two cores each spins on the core the other needs.
# Waiting passively took 11% less CPU on test_policy.py and test_solver.py (set before any
# kernel runs, here, so the workers and every command a test starts inherit it).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# pytest rewrites the asserts of its plugins' packages (schemathesis, hypothesis, anyio: 350
# modules) when they are imported; with PYTHONDONTWRITEBYTECODE it cannot keep what it
# rewrote, and every test process spent 4.6 s of its start doing it again.
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto` on a small machine: one test process more than its cores. About a fifth of
    the suite waits (browsers drawing, servers, commands starting, Dask workers), and a third
    process fills those waits: 5:50 -> 5:38 on 2 cores. (PYTEST_XDIST_AUTO_NUM_WORKERS still
    decides when set.)"""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    return cores + 1 if cores <= 4 else cores


def pytest_sessionstart(session):
    """Compile every kind of work's kernels before the test processes start (`yz warmup`, two
    at a time): on a fresh clone each xdist worker would otherwise compile the same kernels
    at the same moment, and the first test of each kind would wait for it. Nothing to do once
    compiled. (xdist starts its workers in its own, later, sessionstart.)"""
    if hasattr(session.config, "workerinput"):
        return
    from yz.solver.warmup import warm_up

    warm_up()


def pytest_configure(config):
    """A slow slice's seed, drawn once before xdist starts its workers (they inherit it, and
    so collect the same tests)."""
    import random

    if os.environ.get("YZ_SLOW_SLICE", "").isdigit() and not hasattr(config, "workerinput"):
        seed = os.environ.setdefault("YZ_SLICE_SEED", str(random.randrange(1 << 30)))
        print(f"slow slice: {os.environ['YZ_SLOW_SLICE']} slow tests drawn with "
              f"YZ_SLICE_SEED={seed}", file=sys.stderr)


# The test files that take longest (CPU seconds of a whole run, measured), run first: xdist
# hands out whole files (--dist loadfile) in the order collected, so a long file left for the
# end would keep one worker busy while the other waits (pyproject's addopts turn off xdist's
# own order, by the number of tests a file has).
LONGEST_FILES = ("test_terminal.py", "test_web_browser_access.py", "test_robustness.py",
                 "test_policy.py", "test_core_snapshot.py", "test_web_browser.py",
                 "test_minimax.py", "test_web_match.py", "test_sweep.py", "test_quick.py",
                 "test_cli.py", "test_scoring_properties.py", "test_saved_rolls.py",
                 "test_random_rules.py", "test_kernel_cache.py", "test_distribution.py",
                 "test_layered.py", "test_solver.py")


def pytest_collection_modifyitems(config, items):
    """The longest files first (`LONGEST_FILES`), the rest in their order. `YZ_SLOW_SLICE=N`:
    keep N of the slow tests selected, drawn at random (tests/slow_slice.py). Every xdist
    worker orders and draws the same (the seed is fixed before the workers start)."""
    import random

    from slow_slice import NOT_IN_A_SLICE

    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # (stable: in file order)
    size = os.environ.get("YZ_SLOW_SLICE", "")
    if not size.isdigit():
        return
    slow = [item for item in items if item.get_closest_marker("slow")
            and item.originalname not in NOT_IN_A_SLICE]
    seed = os.environ["YZ_SLICE_SEED"]  # (pytest_configure)
    kept = set(random.Random(int(seed)).sample(range(len(slow)), min(int(size), len(slow))))
    chosen = [item for i, item in enumerate(slow) if i in kept]
    config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
    items[:] = chosen


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("yz-cache")


@pytest.fixture(autouse=True)
def isolated_cache(request, tmp_path, monkeypatch):
    if getattr(request.module, "SHARE_CACHE", False) or \
            request.node.get_closest_marker("share_cache"):
        cache = request.getfixturevalue("shared_cache")
    else:
        cache = tmp_path / "yz-cache"
    monkeypatch.setenv("YZ_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def server():
    """`yz serve`'s own server (its protocol, guards and limits) on a free loopback port."""
    from yz.web.settings import WebSettings

    with serving(WebSettings()) as url:
        yield url


@contextlib.contextmanager
def serving(settings):
    """A `yz serve` server with these settings on a free loopback port, in a background
    thread: its address."""
    from yz.web.server import bind, make_server

    sock = bind("127.0.0.1", 0)
    srv = make_server(settings)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium under Playwright (tests/browser_support.py): one browser for a test
    process's whole run (each test opens pages or contexts of its own, closed with it)."""
    from browser_support import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def cluster():
    """A Dask client on a local cluster of 2 worker processes (one thread each), for a module's
    tests (skipped without the `dask` extra)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None, silence_logs=40) as c, \
            distributed.Client(c) as client:
        yield client


@pytest.fixture(autouse=True)
def _close_pages(request):
    """A browser test's pages and contexts are closed after it (the browser is shared)."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()
