"""Shared fixtures: every test gets its own empty strategy cache."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    cache = tmp_path / "yz-cache"
    monkeypatch.setenv("YZ_CACHE_DIR", str(cache))
    return cache
