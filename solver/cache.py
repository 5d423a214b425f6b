"""On-disk cache of solved value tables: `.npz` files, never pickle, verified on every load.

A file is keyed by a hash of the compiled tables (everything that determines the game) and the
solver version, so a changed rule or a changed solver never reuses an old table. Files are
written to a temporary name and renamed into place, so a reader never sees half a file; on load
the stored SHA-256 of the values must match, so a truncated or altered file is reported and
recomputed, never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from yz.rules import RuleTables

from .dp import SOLVER_VERSION

CACHE_FORMAT = 1


def cache_dir() -> Path:
    """`$YZ_CACHE_DIR`, else `$XDG_CACHE_HOME/yz`, else `~/.cache/yz`."""
    if os.environ.get("YZ_CACHE_DIR"):
        return Path(os.environ["YZ_CACHE_DIR"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "yz"


def cache_key(t: RuleTables) -> str:
    return hashlib.sha256(f"{t.digest}:solver-v{SOLVER_VERSION}:cache-v{CACHE_FORMAT}".encode()
                          ).hexdigest()[:20]


def cache_path(t: RuleTables) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", t.rules.name)[:60]
    return cache_dir() / f"{safe}-{cache_key(t)}.npz"


def _checksum(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    path: Path
    variant: str
    expected_score: float
    states: int
    size_bytes: int
    created: str


class CorruptCache(Exception):
    """A cache file that must not be used; the message says why."""


def load(t: RuleTables) -> tuple[np.ndarray, dict] | None:
    """The cached values for these tables, None when absent; CorruptCache when unusable."""
    path = cache_path(t)
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"]))
            values = npz["values"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise CorruptCache(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    if meta.get("format") != CACHE_FORMAT or meta.get("digest") != t.digest:
        raise CorruptCache(f"{path}: written for other rules or another format")
    if list(values.shape) != meta.get("shape") or values.dtype != np.float64:
        raise CorruptCache(f"{path}: value table has the wrong shape or type")
    if _checksum(values) != meta.get("sha256"):
        raise CorruptCache(f"{path}: checksum mismatch (the file was altered or truncated)")
    return values, meta


def store(t: RuleTables, values: np.ndarray, states: int, sd: float | None = None) -> Path:
    """Write atomically: a temporary file in the same folder, then os.replace."""
    path = cache_path(t)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": CACHE_FORMAT, "solver_version": SOLVER_VERSION, "digest": t.digest,
        "variant": t.rules.name, "expected_score": float(values[0, 0, 0]), "states": states,
        "sd": sd,
        "shape": list(values.shape), "sha256": _checksum(values),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, values=values, meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def entries() -> list[CacheEntry]:
    """Every cache file with what its metadata says (unreadable ones listed as such)."""
    out = []
    root = cache_dir()
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*.npz")):
        if path.name.startswith(".tmp-"):
            continue
        try:
            with np.load(path, allow_pickle=False) as npz:
                meta = json.loads(str(npz["meta"]))
            out.append(CacheEntry(path, meta["variant"], meta["expected_score"], meta["states"],
                                  path.stat().st_size, meta["created"]))
        except Exception:
            out.append(CacheEntry(path, "(unreadable)", float("nan"), 0, path.stat().st_size, ""))
    return out


def clear() -> int:
    """Delete every cached table and figures file; returns how many tables went."""
    root = cache_dir()
    if not root.is_dir():
        return 0
    removed = 0
    for path in [*root.glob("*.npz"), *root.glob("*.json")]:
        if path.name.startswith(".tmp-"):
            continue  # another process is writing it; it will be renamed into place
        path.unlink(missing_ok=True)
        removed += path.suffix == ".npz"
    return removed


def stats_path(t: RuleTables, strategy: str) -> Path:
    """Sidecar file of the exact figures of a strategy, next to the value table."""
    return cache_path(t).with_suffix(f".{strategy}.json")


def load_stats(t: RuleTables, strategy: str) -> dict | None:
    """Cached exact figures, or None when absent, stale, altered or unreadable (then they are
    recomputed by the caller)."""
    path = stats_path(t, strategy)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("digest") != t.digest or \
            data.get("solver_version") != SOLVER_VERSION or data.get("strategy") != strategy:
        return None
    figures = data.get("figures")
    if data.get("sha256") != _figures_checksum(figures):
        return None  # altered or damaged: recomputed by the caller
    return figures


def _figures_checksum(figures) -> str:
    return hashlib.sha256(json.dumps(figures, sort_keys=True).encode()).hexdigest()


def store_stats(t: RuleTables, strategy: str, figures: dict) -> None:
    """Write atomically, like the value tables."""
    path = stats_path(t, strategy)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"digest": t.digest, "solver_version": SOLVER_VERSION, "strategy": strategy,
               "figures": figures, "sha256": _figures_checksum(figures)}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
