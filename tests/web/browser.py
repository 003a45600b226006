"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright (never a browser
build of Playwright's own), and a local web game server on a free port."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# without the background-networking flags Chromium tries Google's hosts, which a closed network refuses
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

needs_chromium = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason=f"no {CHROMIUM}: apt-get install chromium (.ci/run installs it)"
)


@contextmanager
def browser_page(width: int = 1200, height: int = 900) -> Iterator:
    """A fresh page in headless Chromium; ``page.errors`` collects console errors and uncaught exceptions."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.errors = []
            page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: page.errors.append(str(error)))
            yield page
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def web_server(record_dir: Path, defaults: dict | None = None) -> Iterator[str]:
    """``kdenv play --web``'s app under uvicorn in a thread, on a free port of 127.0.0.1; yields its URL."""
    import uvicorn

    from agents.play.web.server import create_app

    port = free_port()
    # log_config=None: uvicorn's own dictConfig would close the handlers of everything already logging in this
    # process (Ray's among them, when the Ray tests ran first), taking the test run's stderr with them
    config = uvicorn.Config(
        create_app(record_dir, defaults, port), host="127.0.0.1", port=port, log_level="warning", log_config=None
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web game server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)
