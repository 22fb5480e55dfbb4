"""Drive headless Chromium over the DevTools protocol (aiohttp websockets, no extra package).

Opens a local file, collects console errors, uncaught exceptions and log errors (CSP violations
land there), evaluates JavaScript and takes a full-page PNG screenshot. Also a tiny PNG decoder
so a test can tell a blank screenshot from a real one without Pillow.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars"]


@dataclass(frozen=True)
class Cdp:
    """A DevTools call to make in order among ``evaluate``'s scripts; its result is stored under the same name
    (e.g. ``Cdp("Emulation.setEmulatedMedia", {"media": "print"})`` or ``Cdp("Page.printToPDF")``)."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class PageResult:
    errors: list[str] = field(default_factory=list)
    screenshot: bytes = b""
    values: dict[str, Any] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)


class Chromium:
    """One headless Chromium process with a fresh profile; use as an async context manager."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.profile = Path(tempfile.mkdtemp(prefix="rb-chrome-"))
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self._ids = itertools.count(1)

    async def __aenter__(self) -> "Chromium":
        self.proc = subprocess.Popen(
            [self.binary, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60  # a loaded 2-core machine has taken more than 15 s to start it
        while time.monotonic() < deadline:
            if port_file.exists() and port_file.read_text().strip():
                self.port = int(port_file.read_text().splitlines()[0])
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode}")
            await asyncio.sleep(0.05)
        else:
            raise RuntimeError("chromium did not open a DevTools port")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    async def open(self, path: Path, *, width: int = 1280, height: int = 900, evaluate: dict[str, str | Cdp] | None = None,
                   full_page: bool = True, before_screenshot: str | None = None, scale: float = 1.0) -> PageResult:
        result = PageResult()
        async with aiohttp.ClientSession() as http:
            async with http.put(f"http://127.0.0.1:{self.port}/json/new?about:blank") as resp:
                target = json.loads(await resp.text())
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                pending: dict[int, asyncio.Future] = {}
                loaded = asyncio.Event()

                async def reader() -> None:
                    async for msg in ws:
                        data = json.loads(msg.data)
                        if "id" in data and data["id"] in pending:
                            pending.pop(data["id"]).set_result(data)
                            continue
                        method, params = data.get("method"), data.get("params", {})
                        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                            result.errors.append("console: " + " ".join(str(a.get("value", a.get("description", "")))
                                                                        for a in params.get("args", [])))
                        elif method == "Runtime.exceptionThrown":
                            d = params.get("exceptionDetails", {})
                            result.errors.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
                        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                            result.errors.append("log: " + str(params["entry"].get("text")))
                        elif method == "Network.requestWillBeSent":
                            result.requests.append(params.get("request", {}).get("url", ""))
                        elif method == "Page.loadEventFired":
                            loaded.set()

                task = asyncio.create_task(reader())

                async def call(method: str, **params: Any) -> dict:
                    i = next(self._ids)
                    fut: asyncio.Future = asyncio.get_running_loop().create_future()
                    pending[i] = fut
                    await ws.send_str(json.dumps({"id": i, "method": method, "params": params}))
                    reply = await asyncio.wait_for(fut, 20)
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})

                try:
                    for domain in ("Runtime", "Log", "Page", "Network"):
                        await call(f"{domain}.enable")
                    await call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
                    await call("Page.navigate", url=path.resolve().as_uri())
                    await asyncio.wait_for(loaded.wait(), 60)
                    await asyncio.sleep(0.3)
                    for name, expr in (evaluate or {}).items():
                        if isinstance(expr, Cdp):
                            result.values[name] = await call(expr.method, **expr.params)
                            continue
                        r = await call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
                        if "exceptionDetails" in r:
                            raise RuntimeError(f"evaluate {name}: {r['exceptionDetails']}")
                        result.values[name] = r.get("result", {}).get("value")
                    if before_screenshot:
                        await call("Runtime.evaluate", expression=before_screenshot, returnByValue=True)
                        await asyncio.sleep(0.2)
                    params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
                    if scale != 1.0:
                        size = await call("Runtime.evaluate", returnByValue=True,
                                          expression="[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
                        w, h = size["result"]["value"] if full_page else (width, height)
                        params["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": scale}
                    shot = await call("Page.captureScreenshot", **params)
                    result.screenshot = base64.b64decode(shot["data"])
                finally:
                    task.cancel()
            async with http.get(f"http://127.0.0.1:{self.port}/json/close/{target['id']}") as resp:
                await resp.read()
        return result


# --------------------------------------------------------------------------- PNG

def png_pixels(data: bytes) -> tuple[int, int, int, bytes]:
    """Decode an 8-bit, non-interlaced RGB/RGBA/grey PNG to raw rows: (width, height, channels, bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, [], 0
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if ctype == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and interlace == 0, (depth, interlace)
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif ctype == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return width, height, channels, bytes(out)


def png_stats(data: bytes, *, max_rows: int = 1500) -> dict[str, float]:
    """Size, luminance variance and share of non-white pixels (top *max_rows* rows)."""
    w, h, ch, px = png_pixels(data)
    rows = min(h, max_rows)
    lum = []
    step = max(1, w // 400)
    for y in range(0, rows, 2):
        base = y * w * ch
        for x in range(0, w, step):
            i = base + x * ch
            if ch >= 3:
                lum.append(0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2])
            else:
                lum.append(px[i])
    n = len(lum)
    mean = sum(lum) / n
    var = sum((v - mean) ** 2 for v in lum) / n
    ink = sum(1 for v in lum if v < 240) / n
    return {"width": w, "height": h, "mean": mean, "variance": var, "ink": ink}


def run(coro):  # pragma: no cover - convenience for scripts
    return asyncio.run(coro)


def env_ok() -> bool:
    return bool(shutil.which("chromium")) and os.name == "posix"
