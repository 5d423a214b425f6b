"""Shared fixtures: every test gets its own empty strategy cache, or, in a module that sets
`SHARE_CACHE = True`, one cache for the whole module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("yz-cache")


@pytest.fixture(autouse=True)
def isolated_cache(request, tmp_path, monkeypatch):
    if getattr(request.module, "SHARE_CACHE", False):
        cache = request.getfixturevalue("shared_cache")
    else:
        cache = tmp_path / "yz-cache"
    monkeypatch.setenv("YZ_CACHE_DIR", str(cache))
    return cache
