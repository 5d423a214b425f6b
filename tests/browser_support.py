"""What the browser tests share: Debian's chromium and its flags, and screenshots kept on
request (the `server` and `browser` fixtures are in conftest.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]


def shot(page, tmp_path: Path, name: str, full_page: bool = True) -> Path:
    """A screenshot in the test's folder, and in YZ_SCREENSHOT_DIR when set."""
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=full_page)
    keep = os.environ.get("YZ_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / name)
    return path


def hold(page, keep) -> None:
    """Hold exactly the dice `keep` on the page (clicking those to hold or let go)."""
    want = list(keep)
    for die in page.query_selector_all("#dice .die"):
        value = int(die.get_attribute("data-value"))
        held = value in want
        if held:
            want.remove(value)
        if (die.get_attribute("data-held") == "1") != held:
            die.click()


def press(page, option) -> None:
    """Make a coach `Option`'s move by clicking: hold exactly its kept dice and Roll, or
    click its box."""
    if option.kind == "score":
        page.click(f"#card tr[data-box='{option.box.key}']")
    else:
        hold(page, option.keep)
        page.click("#roll")
