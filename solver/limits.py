"""What this machine allows: memory for tables and the estimate behind a refusal."""

from __future__ import annotations

import os


def machine_memory() -> int:
    """Physical memory in bytes (a generous 8 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30
