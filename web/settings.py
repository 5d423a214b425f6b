"""What a `yz serve` allows: its limits on work and connections, in one place."""

from __future__ import annotations

from dataclasses import dataclass

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

# Bounds on a pasted rule set, checked while it is read (before any Python object is built
# past them): the biggest shipped rule set has 196 values nested 7 deep.
MAX_YAML_CHARS = 64 * 1024
MAX_YAML_NODES = 2_000
MAX_YAML_DEPTH = 12
MAX_BODY = 256 * 1024  # bytes of a request body


@dataclass(frozen=True)
class WebSettings:
    """Limits of one server. `offline_command` is how to play a rule set too big for the
    page, on the command line (`{rules}`: the built-in's name, or a file of pasted rules);
    `store_command` how to make a store of its values and serve it from there (`{rules}`
    too, and `{time}`: the layered solve's estimate). `stores`: rule sets served from the
    folders of their finished layered solves, whatever their size: (a built-in's name,
    example:NAME or a rule file; the folder)."""

    max_solve_seconds: float = 60.0  # estimated, with compiled kernels (solver.limits)
    max_queued: int = 3  # solves running or waiting; more get 429
    abandon_after: float = 15.0  # seconds without a poll before a solve is cancelled
    request_deadline: float = 10.0  # seconds to send a whole request (headers and body)
    max_connections: int = 64  # open at once; more are closed at once
    hosts: tuple[str, ...] = LOOPBACK_NAMES  # names the Host header may give
    offline_command: str = "yz on the command line, with the rules {rules}"
    store_command: str = ("a layered solve of {rules} into a folder (about {time} here), "
                          "given to this server as its store")
    stores: tuple[tuple[str, str], ...] = ()
    # Two-player games: a turn whose chances of winning are estimated to take longer is
    # judged by the expected score (`solver.match`); pieces of such work waiting at most.
    win_seconds: float = 10.0
    max_work: int = 8

    def allows_host(self, name: str) -> bool:
        return name.lower() in {h.lower().strip("[]") for h in self.hosts}
