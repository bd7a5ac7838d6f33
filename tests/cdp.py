"""A small Chrome DevTools Protocol client: open a page in headless Chromium, watch what it does.

Used by the report's browser tests (and to take the README's screenshot): it starts Debian's
``chromium`` headless with a DevTools port, attaches to one page over a WebSocket
(``websocket-client``), and records console messages, uncaught exceptions, log entries and
network requests while the page loads.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where the browser is looked for, in order.
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    """Return the path of a Chromium executable, or None."""
    override = os.environ.get("POLARSCORE_CHROMIUM")
    if override:
        return override
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageLoad:
    """What a page did while it loaded."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)

    def errors(self) -> list[str]:
        """Console errors and warnings, exceptions, error log entries and failed loads."""
        found = [
            f"console.{m.get('type')}: {m.get('args')}"
            for m in self.console
            if m.get("type") in ("error", "assert", "warning")
        ]
        found += [f"exception: {e.get('exceptionDetails')}" for e in self.exceptions]
        found += [
            f"log {e['entry'].get('level')}: {e['entry'].get('text')}"
            for e in self.log
            if e.get("entry", {}).get("level") in ("error", "warning")
        ]
        found += [f"failed load: {f}" for f in self.failed]
        return found


class Browser:
    """Headless Chromium driven over the DevTools protocol; use as a context manager."""

    def __init__(self, executable: str, *, timeout: float = 30.0) -> None:
        import websocket  # test dependency (websocket-client)

        self._profile = tempfile.mkdtemp(prefix="polarscore-chromium-")
        self._process = subprocess.Popen(
            [
                executable,
                "--headless=new",
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}",
                "--no-sandbox",  # CI runs as root, where the sandbox refuses to start
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.timeout = timeout
        url = self._devtools_url(timeout)
        self._socket = websocket.create_connection(url, timeout=timeout, suppress_origin=True)
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]

    def _devtools_url(self, timeout: float) -> str:
        """Read the browser's DevTools address from the file it writes in its profile."""
        written = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._process.poll() is None:
            lines = written.read_text().splitlines() if written.exists() else []
            if len(lines) >= 2:
                return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
            time.sleep(0.05)
        code = self._process.poll()
        self.close()
        raise RuntimeError(f"Chromium did not start its DevTools server (exit code {code}).")

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._socket.send(json.dumps(message))
        while True:
            reply = json.loads(self._socket.recv())
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self._events.append(reply)

    def _wait_for(self, method: str, deadline: float) -> None:
        while not any(e["method"] == method for e in self._events):
            self._socket.settimeout(max(0.1, deadline - time.monotonic()))
            reply = json.loads(self._socket.recv())
            if "method" in reply:
                self._events.append(reply)
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} within the timeout")
        self._socket.settimeout(self.timeout)

    def _drain(self, seconds: float) -> None:
        """Collect the events that arrive within ``seconds``."""
        import websocket

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._socket.settimeout(max(0.05, end - time.monotonic()))
            try:
                reply = json.loads(self._socket.recv())
            except websocket.WebSocketTimeoutException:
                break
            if "method" in reply:
                self._events.append(reply)
        self._socket.settimeout(self.timeout)

    def load(self, url: str, *, width: int = 1280, height: int = 900) -> PageLoad:
        """Open ``url`` in the page and return what it logged and requested while loading."""
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        self._events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self._wait_for("Page.loadEventFired", time.monotonic() + self.timeout)
        self._drain(0.5)
        load = PageLoad()
        for event in self._events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                load.console.append(params)
            elif method == "Runtime.exceptionThrown":
                load.exceptions.append(params)
            elif method == "Log.entryAdded":
                load.log.append(params)
            elif method == "Network.requestWillBeSent":
                load.requests.append(params["request"]["url"])
            elif method == "Network.loadingFailed":
                load.failed.append(params)
        return load

    def evaluate(self, expression: str) -> Any:
        """Return the value of a JavaScript expression in the page (the test's probe only)."""
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True
        )
        return result["result"].get("value")

    def screenshot(self, path: Path, *, height: int | None = None, top: int = 0) -> None:
        """Save a PNG of the page: ``height`` pixels from ``top`` (default: the viewport)."""
        params: dict[str, Any] = {"format": "png"}
        if height is not None:
            width = self.evaluate("document.documentElement.scrollWidth")
            params["clip"] = {"x": 0, "y": top, "width": width, "height": height, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        socket = getattr(self, "_socket", None)
        if socket is not None:
            with contextlib.suppress(Exception):
                socket.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main() -> None:
    """Save a screenshot of a page: ``python tests/cdp.py PAGE.html OUT.png [HEIGHT]``.

    The README's ``docs/images/report.png`` is made this way from the bundled sample's report.
    """
    import sys

    page, out = Path(sys.argv[1]), Path(sys.argv[2])
    height = int(sys.argv[3]) if len(sys.argv) > 3 else 1400
    executable = find_browser()
    if executable is None:
        raise SystemExit("no Chromium executable found")
    with Browser(executable) as browser:
        load = browser.load(page.resolve().as_uri())
        if load.errors():
            raise SystemExit(f"the page logged errors: {load.errors()}")
        browser.screenshot(out, height=height)


if __name__ == "__main__":
    main()
