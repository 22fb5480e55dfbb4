"""LibreOffice as an independent oracle, driven headless through UNO.

Run with the *system* Python that has Debian's ``python3-uno`` (not the project venv)::

    /usr/bin/python3 lo_oracle.py JOB.json RESULT.json

``JOB.json``: ``{"soffice": path, "profile": dir, "files": [{"path", "pdf"?: out path}]}``.
For each file it loads the document hidden, records the body text (paragraphs in order,
table-cell paragraphs included, one list item per paragraph, list labels excluded), then the
text after LibreOffice's own *Accept All* and, from a fresh load, after *Reject All*; with
``pdf`` it also exports a PDF. One LibreOffice process serves the whole batch.
``RESULT.json``: ``{path: {"loaded": bool, "error"?, "raw", "accepted", "original",
"redlines": n, "pdf_bytes"?}}``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid


def _connect(soffice: str, profile: str):
    import uno  # noqa: PLC0415  (system python only)

    pipe = f"rb_oracle_{uuid.uuid4().hex[:12]}"
    proc = subprocess.Popen(
        [soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--invisible", "--norestore",
         "--nologo", "--nodefault", f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + 90
    while True:
        try:
            ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            break
        except Exception:  # noqa: BLE001  (NoConnectException until soffice listens)
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("LibreOffice did not start listening")
            time.sleep(0.3)
    smgr = ctx.ServiceManager
    desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    return proc, desktop, dispatcher


def _props(**values):
    import uno  # noqa: PLC0415
    from com.sun.star.beans import PropertyValue  # noqa: PLC0415

    out = []
    for key, value in values.items():
        prop = PropertyValue()
        prop.Name = key
        prop.Value = value
        out.append(prop)
    return tuple(out)


def _paragraphs(text) -> list[str]:
    """Body paragraphs in order; a table contributes its cells' paragraphs row by row."""
    lines: list[str] = []
    enum = text.createEnumeration()
    while enum.hasMoreElements():
        element = enum.nextElement()
        if element.supportsService("com.sun.star.text.Paragraph"):
            lines.append(element.getString())
        elif element.supportsService("com.sun.star.text.TextTable"):
            for name in _cell_order(element.getCellNames()):
                lines.extend(_paragraphs(element.getCellByName(name)))
    return lines


def _cell_order(names) -> list[str]:
    def key(name: str):
        letters = "".join(ch for ch in name if ch.isalpha())
        digits = "".join(ch for ch in name if ch.isdigit())
        col = 0
        for ch in letters:
            col = col * 52 + (ord(ch) - (65 if ch.isupper() else 71))
        return (int(digits or 0), col)

    return sorted(names, key=key)


def _load(desktop, path: str):
    import uno  # noqa: PLC0415

    url = uno.systemPathToFileUrl(os.path.abspath(path))
    return desktop.loadComponentFromURL(url, "_blank", 0, _props(Hidden=True, ReadOnly=False))


def _apply(dispatcher, doc, command: str) -> None:
    frame = doc.getCurrentController().getFrame()
    dispatcher.executeDispatch(frame, command, "", 0, ())


def run(job: dict) -> dict:
    proc, desktop, dispatcher = _connect(job["soffice"], job["profile"])
    results: dict[str, dict] = {}
    try:
        for item in job["files"]:
            path = item["path"]
            entry: dict = {"loaded": False}
            results[path] = entry
            try:
                doc = _load(desktop, path)
                if doc is None:
                    entry["error"] = "LibreOffice could not load the file"
                    continue
                entry["loaded"] = True
                entry["raw"] = _paragraphs(doc.getText())
                entry["redlines"] = doc.getRedlines().getCount()
                if item.get("pdf"):
                    import uno  # noqa: PLC0415

                    doc.storeToURL(uno.systemPathToFileUrl(os.path.abspath(item["pdf"])),
                                   _props(FilterName="writer_pdf_Export"))
                    entry["pdf_bytes"] = os.path.getsize(item["pdf"])
                _apply(dispatcher, doc, ".uno:AcceptAllTrackedChanges")
                entry["accepted"] = _paragraphs(doc.getText())
                doc.close(True)
                doc = _load(desktop, path)
                _apply(dispatcher, doc, ".uno:RejectAllTrackedChanges")
                entry["original"] = _paragraphs(doc.getText())
                doc.close(True)
            except Exception as exc:  # noqa: BLE001  (reported per file)
                entry["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        try:
            desktop.terminate()
        except Exception:  # noqa: BLE001
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return results


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as fh:
        job_spec = json.load(fh)
    out = run(job_spec)
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False)
