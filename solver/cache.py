"""On-disk cache of solved strategies: raw `.npy` value stores and JSON metadata, never pickle.

Files of one solved rule set (`<variant>-<key>`, the key a hash of the compiled tables, the
solver version and this format):

    <variant>-<key>.json              metadata: variant, figures, store size, checksums
    <variant>-<key>.values.npy        the value store (see solver.layout), memory-mappable
    <variant>-<key>.<what>.json       exact figures of a strategy (what: the strategy's name)
    <name>-<key>.answer.json          what the last plain `yz solve` of a rule file or built-in
                                      printed, for the next one (written by `yz.cli.quick`)

Every file is written to a temporary name (`.tmp-yz-...`) and renamed into place, the metadata
last, so a reader never sees half a solve. The metadata carries the SHA-256 of each block of
the store (`BLOCK` entries) and of itself; a file that fails any check is reported and
recomputed, never used. `clear` and `entries` only ever look at names of these forms (and at
temporary files and the files of older formats, which they report as such): a cache folder
pointed at a project folder loses nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from yz.rules import RuleTables, YzError

from .dp import SOLVER_VERSION
from .sealed import (
    CheckedFile,
    CorruptCache,
    array_block_sums,
    read_sealed,
    save_table,
    write_sealed,
)

CACHE_FORMAT = 2
BLOCK = 1 << 20  # store entries per checksum block (8 MB of float64)

# Names yz writes: <variant>-<20 hex digits><part>, and its temporary files.
_NAME = r"(?P<variant>[A-Za-z0-9_.-]{1,60})-(?P<key>[0-9a-f]{20})"
OWN_FILE = re.compile(_NAME + r"(?P<part>\.json|\.[a-z][a-z0-9-]*\.json"
                      r"|\.(values|targets-[0-9]+)\.npy|\.npz)$")
# What yz's files start with: its JSON (json.dumps of a mapping), NumPy's .npy, a zip (.npz).
OWN_HEADERS = {".json": (b'{"',), ".npy": (b"\x93NUMPY",), ".npz": (b"PK\x03\x04", b"PK\x05\x06")}
FRESH_TEMP_SECONDS = 60  # a temporary file this young may belong to a write in progress
TEMP_FILE = re.compile(r"^\.tmp-(yz-.+|[a-z0-9_]{8}\.(npz|json))$")  # the second: format 1


class CacheError(YzError):
    """The cache folder cannot be used (it is a file, or cannot be created)."""


__all__ = ["CacheError", "CorruptCache"]  # (CorruptCache: solver.sealed's, named here too)


def cache_dir() -> Path:
    """`$YZ_CACHE_DIR`, else the platform's user cache folder for yz (platformdirs)."""
    if os.environ.get("YZ_CACHE_DIR"):
        root = Path(os.environ["YZ_CACHE_DIR"]).expanduser()
    else:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("yz", appauthor=False))
    # The folder, or the nearest part of its path that exists, must be a folder.
    there = next((p for p in (root, *root.parents) if p.exists()), None)
    if there is not None and not there.is_dir():
        raise CacheError(f"the cache folder {root} cannot be made: {there} is a file, not a "
                         "folder; point YZ_CACHE_DIR at a folder (it is created when missing), "
                         "or unset it.")
    return root


def cache_key(t: RuleTables) -> str:
    return hashlib.sha256(f"{t.digest}:solver-v{SOLVER_VERSION}:cache-v{CACHE_FORMAT}".encode()
                          ).hexdigest()[:20]


def cache_stem(t: RuleTables) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", t.rules.name)[:60] or "rules"
    return cache_dir() / f"{safe}-{cache_key(t)}"


def meta_path(t: RuleTables) -> Path:
    return cache_stem(t).with_name(cache_stem(t).name + ".json")


def values_path(t: RuleTables) -> Path:
    return cache_stem(t).with_name(cache_stem(t).name + ".values.npy")


def figures_path(t: RuleTables, what: str) -> Path:
    """Sidecar file of exact figures (`what`: a strategy's name), next to the value table."""
    return cache_stem(t).with_name(f"{cache_stem(t).name}.{what}.json")


@dataclass(frozen=True)
class Hit:
    """A verified cached table."""

    values: np.ndarray
    states: int
    sd: float | None


def load(t: RuleTables, size: int) -> Hit | None:
    """The cached store for these tables (`size` entries), None when absent; CorruptCache
    when a file exists but fails a check."""
    meta_file = meta_path(t)  # a cache folder that is a file raises CacheError here
    if not meta_file.exists():
        return None
    meta = read_sealed(meta_file)
    if meta.get("format") != CACHE_FORMAT or meta.get("digest") != t.digest or \
            meta.get("solver_version") != SOLVER_VERSION:
        raise CorruptCache(f"{meta_file}: written for other rules, solver or format")
    if meta.get("size") != size or meta.get("dtype") != "float64":
        raise CorruptCache(f"{meta_file}: the stored table has the wrong size or type")
    try:
        values = np.load(values_path(t), mmap_mode="c", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise CorruptCache(f"{values_path(t)}: unreadable ({type(exc).__name__}: {exc})") \
            from None
    if values.shape != (size,) or values.dtype != np.float64:
        raise CorruptCache(f"{values_path(t)}: the value table has the wrong shape or type")
    if array_block_sums(values, 8 * BLOCK) != meta.get("blocks"):
        raise CorruptCache(f"{values_path(t)}: checksum mismatch (the file was altered or "
                           "truncated)")
    sd = meta.get("sd")
    return Hit(values, int(meta["states"]), float(sd) if sd is not None else None)


def store(t: RuleTables, values: np.ndarray, states: int, expected_score: float,
          sd: float | None = None) -> Path:
    """Write the store, then its metadata (the metadata's presence marks a complete entry),
    which holds what checks the store without numpy (`sealed.table_intact`: `yz solve`'s
    memo reads it so)."""
    facts = save_table(values_path(t), np.asarray(values, dtype=np.float64), 8 * BLOCK)
    path = meta_path(t)
    write_sealed(path, {
        "format": CACHE_FORMAT, "solver_version": SOLVER_VERSION, "digest": t.digest,
        "variant": t.rules.name, "expected_score": expected_score, "states": states, "sd": sd,
        "size": int(values.size), "dtype": "float64", "block": BLOCK, **facts,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, indent=1)
    return path


def load_figures(t: RuleTables, what: str, strict: bool = False) -> dict | None:
    """Cached figures, or None when absent, stale, altered or unreadable (the caller then
    recomputes and rewrites them); with `strict`, an altered or unreadable file is a
    CorruptCache (to be noted), not None."""
    path = figures_path(t, what)
    if strict and not path.exists():
        return None
    try:
        data = read_sealed(path)
    except CorruptCache:
        if strict:
            raise
        return None
    if data.get("digest") != t.digest or data.get("solver_version") != SOLVER_VERSION or \
            data.get("what") != what or not isinstance(data.get("figures"), dict):
        return None
    return data["figures"]


def store_figures(t: RuleTables, what: str, figures: dict) -> None:
    """Write figures atomically (a read-only cache folder is the caller's to forgive)."""
    write_sealed(figures_path(t, what), {"format": CACHE_FORMAT, "digest": t.digest,
                                         "solver_version": SOLVER_VERSION,
                                         "variant": t.rules.name, "what": what,
                                         "figures": figures})


# ---------------------------------------------------------------- big tables


def array_path(t: RuleTables, what: str) -> Path:
    return cache_stem(t).with_name(f"{cache_stem(t).name}.{what}.npy")


def store_array(t: RuleTables, what: str, array: np.ndarray, info: dict | None = None) -> None:
    """Write a big table (`what` names it) with per-block checksums of its rows, table first,
    then its sealed metadata (`<stem>.<what>.json`, which marks it complete)."""
    rows_per_block = max(1, BLOCK // max(1, int(np.prod(array.shape[1:]))))
    facts = save_table(array_path(t, what), array,
                       rows_per_block * int(np.prod(array.shape[1:])) * array.itemsize)
    write_sealed(figures_path(t, what), {
        "format": CACHE_FORMAT, "digest": t.digest, "solver_version": SOLVER_VERSION,
        "variant": t.rules.name, "what": what, "shape": list(array.shape),
        "dtype": str(array.dtype), "rows_per_block": rows_per_block, **facts,
        "info": info or {}})


class CheckedArray:
    """A cached table, memory-mapped, each block of rows checked against its checksum the first
    time it is read (`sealed.CheckedFile`: a whole check of a 1 GB table would cost more than
    an answer)."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.meta = meta
        shape, dtype = tuple(int(n) for n in meta["shape"]), np.dtype(meta["dtype"])
        self.file = CheckedFile(path, list(meta["blocks"]), int(meta["block_bytes"]),
                                int(meta["data_offset"]), int(meta["file_bytes"]))
        self.array = np.ndarray(shape, dtype, buffer=self.file.buffer,
                                offset=int(meta["data_offset"]))
        self.row_bytes = dtype.itemsize * int(np.prod(shape[1:]))

    @property
    def info(self) -> dict:
        return self.meta.get("info", {})

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows start .. stop - 1, checked; CorruptCache if a block was altered."""
        self.file.check(start * self.row_bytes, stop * self.row_bytes)
        return self.array[start:stop]

    def row(self, i: int) -> np.ndarray:
        return self.rows(i, i + 1)[0]

    def whole(self) -> np.ndarray:
        return self.rows(0, self.array.shape[0])


def load_array(t: RuleTables, what: str) -> CheckedArray | None:
    """A cached big table, None when absent; CorruptCache when it fails a check."""
    meta_file = figures_path(t, what)
    if not meta_file.exists():
        return None
    meta = read_sealed(meta_file)
    if meta.get("format") != CACHE_FORMAT or meta.get("digest") != t.digest or \
            meta.get("solver_version") != SOLVER_VERSION or meta.get("what") != what:
        raise CorruptCache(f"{meta_file}: written for other rules, solver or format")
    try:
        return CheckedArray(array_path(t, what), meta)
    except (KeyError, TypeError, ValueError) as exc:  # (a file of the size but not the shape)
        raise CorruptCache(f"{array_path(t, what)}: not the table its metadata describes "
                           f"({type(exc).__name__}: {exc})") from None


def remove_array(t: RuleTables, what: str) -> None:
    """Delete a cached big table and its metadata (yz's own names; absent is fine)."""
    for path in (figures_path(t, what), array_path(t, what)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def cached_target_maxima(t: RuleTables) -> list[int]:
    """The maximum targets of the target tables cached for these rules, smallest first."""
    stem = cache_stem(t)
    found = []
    for path in stem.parent.glob(f"{stem.name}.targets-*.json"):
        with contextlib.suppress(ValueError):
            found.append(int(path.name[len(stem.name) + len(".targets-"): -len(".json")]))
    return sorted(found)


# ---------------------------------------------------------------- listing and clearing


@dataclass(frozen=True)
class CacheEntry:
    """One file of the cache folder that yz wrote."""

    path: Path
    variant: str
    kind: str  # "values" (metadata), "store" (the values), "figures", "answer", "temporary"
    status: str  # "ok", "stale" (an older format or solver), "damaged"
    size_bytes: int
    expected_score: float | None = None
    states: int | None = None
    created: str | None = None


def _describe(path: Path) -> CacheEntry:
    size = path.stat().st_size
    if TEMP_FILE.match(path.name):
        young = time.time() - path.stat().st_mtime < FRESH_TEMP_SECONDS
        return CacheEntry(path, "-", "temporary", "writing" if young else "stale", size)
    m = OWN_FILE.match(path.name)
    variant, part = m["variant"], m["part"]
    if part == ".npz":  # format 1: a value table with its metadata inside
        return CacheEntry(path, variant, "values", "stale", size)
    if part.endswith(".npy"):
        meta = path.with_name(path.name[: -len(".values.npy")] + ".json") \
            if part == ".values.npy" else path.with_suffix(".json")
        intact = meta.exists() and _npy_size_matches(path, size)
        return CacheEntry(path, variant, "store", "ok" if intact else "damaged", size)
    try:
        data = read_sealed(path)
    except CorruptCache:
        # Format 1 figures carried no self-checksum: stale, not damaged.
        with contextlib.suppress(OSError, ValueError):
            old = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(old, dict) and old.get("solver_version") == 1:
                return CacheEntry(path, variant, "figures", "stale", size)
        return CacheEntry(path, variant, "figures" if part.count(".") > 1 else "values",
                          "damaged", size)
    current = data.get("format") == CACHE_FORMAT and data.get("solver_version") == \
        SOLVER_VERSION
    if part == ".json":
        score = data.get("expected_score")
        return CacheEntry(path, str(data.get("variant", variant)), "values",
                          "ok" if current else "stale", size,
                          float(score) if isinstance(score, int | float)
                          and math.isfinite(score) else None,
                          data.get("states") if isinstance(data.get("states"), int) else None,
                          str(data.get("created", "")) or None)
    return CacheEntry(path, str(data.get("variant", variant)),
                      "answer" if part == ".answer.json" else "figures",
                      "ok" if current else "stale", size)


def _npy_size_matches(path: Path, size: int) -> bool:
    """Whether an .npy file is as long as its header says (a cheap check: a truncated or
    padded table is damaged; an altered byte is found by the checksums when it is read)."""
    try:
        with path.open("rb") as fh:
            major, _ = np.lib.format.read_magic(fh)
            read_header = (np.lib.format.read_array_header_1_0 if major == 1
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(fh)
            offset = fh.tell()
    except (OSError, ValueError):
        return False
    return size == offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize


def own_files(root: Path | None = None) -> list[Path]:
    """The files in the cache folder whose names and first bytes are those yz writes (nothing
    else is ever touched: a user's `house-<hash>.backup.npy` or a renamed text file stays)."""
    root = cache_dir() if root is None else root
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_file() and _is_own(p))


def _is_own(path: Path) -> bool:
    if TEMP_FILE.match(path.name):
        return True
    if not OWN_FILE.match(path.name):
        return False
    headers = OWN_HEADERS[path.suffix]
    try:
        with path.open("rb") as fh:
            start = fh.read(max(len(h) for h in headers))
    except OSError:
        return False
    return start.startswith(headers) or (path.suffix == ".json" and start.lstrip()[:1] == b"{")


def entries() -> list[CacheEntry]:
    """Every file yz wrote in the cache folder, with what it holds and whether it is usable."""
    out = []
    for path in own_files():
        with contextlib.suppress(FileNotFoundError):  # removed meanwhile by another process
            out.append(_describe(path))
    return out


def clear(variant: str | None = None, stale_only: bool = False) -> list[Path]:
    """Delete yz's files from the cache folder (only those of `variant` when given; only
    stale, damaged and temporary ones with `stale_only`); returns the paths removed.

    Temporary files younger than a minute may belong to a solve in progress and are kept
    (listed as "writing", never as stale).
    """
    removed = []
    now = time.time()
    for entry in entries():
        if variant is not None and entry.variant != variant:
            continue
        if stale_only and entry.status == "ok":
            continue
        if entry.kind == "temporary" and now - entry.path.stat().st_mtime < FRESH_TEMP_SECONDS:
            continue
        with contextlib.suppress(FileNotFoundError):
            entry.path.unlink()
            removed.append(entry.path)
    return removed
