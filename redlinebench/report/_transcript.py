"""What the agent did: ``transcript.jsonl`` as a readable timeline.

One line per event (model turn, tool call and its outcome, retry, error, context shortening,
end), each string cut to a few hundred characters. The full prompts stay in the file; the page
shows what a reviewer needs to see why an edit failed or a run stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._html import Markup, count, el, join, money, seconds

MAX_EVENTS = 400
MAX_BYTES = 20 * 1024 * 1024
TEXT_CHARS = 600
ARGS_CHARS = 400


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" … (+{len(text) - limit} chars)"


def _json(value: Any, limit: int) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return _cut(value, limit)
    return _cut(json.dumps(value, ensure_ascii=False, default=str), limit)


def read_events(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Parsed events and problems (bad lines are reported, not fatal)."""
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            read = 0
            for n, line in enumerate(fh, 1):
                read += len(line)
                if read > MAX_BYTES:
                    problems.append(f"{path}: longer than {MAX_BYTES // (1024 * 1024)} MB; the rest is not shown")
                    break
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    problems.append(f"{path}: line {n} is not JSON")
                    continue
                if isinstance(event, dict):
                    events.append(event)
    except OSError as exc:
        problems.append(f"{path}: could not be read ({exc.strerror or exc})")
    return events, problems


def _outcome(result: Any) -> Markup:
    """A tool result in a few words: ok / error code / per-edit statuses."""
    if not isinstance(result, dict):
        return el("span", _json(result, 160), class_="small")
    if result.get("error"):
        return join([el("span", str(result.get("error")), class_="badge b-fail"), " ",
                     el("span", _cut(str(result.get("message", "")), 300), class_="small")])
    edits = result.get("results") if isinstance(result.get("results"), list) else None
    if edits is not None:
        parts = []
        for r in edits:
            if not isinstance(r, dict):
                continue
            st = str(r.get("status", "?"))
            cls = "badge b-pass" if st == "ok" else "badge b-fail"
            parts.append(el("li", el("span", st, class_=cls), " ", str(r.get("op", "")), " ", str(r.get("paragraph_id", "") or ""),
                            el("span", " · " + _cut(str(r.get("error")), 240), class_="small") if r.get("error") else None))
        return el("ul", *parts, class_="edits")
    return el("span", "ok", class_="badge b-pass")


def render_transcript(events: list[dict[str, Any]]) -> Markup:
    items = []
    for e in events[:MAX_EVENTS]:
        kind = str(e.get("type", "?"))
        step = e.get("step")
        head = el("span", f"{kind}" + (f" · step {step}" if step is not None else ""), class_="ev-kind")
        body: list[object] = []
        if kind == "start":
            tools = e.get("tools")
            body.append(join(["started", *([" · ", el("bdi", str(e.get("model")))] if e.get("model") else []),
                              f"{' · agent ' + str(e.get('agent')) if e.get('agent') else ''}"]))
            if isinstance(tools, list):
                body.append(el("span", " · tools: " + ", ".join(str(t) for t in tools), class_="small muted"))
        elif kind == "model":
            msg = e.get("message") if isinstance(e.get("message"), dict) else {}
            meta = [seconds(e.get("latency_s")), f"{count(e.get('tokens_in'))} in / {count(e.get('tokens_out'))} out",
                    money(e.get("cost_usd")), str(e.get("finish_reason") or "")]
            body.append(el("span", " · ".join(m for m in meta if m and m != "—"), class_="small muted"))
            if isinstance(msg.get("content"), str) and msg["content"].strip():
                body.append(el("div", _cut(msg["content"], TEXT_CHARS), class_="ev-text"))
            calls = msg.get("tool_calls") if isinstance(msg.get("tool_calls"), list) else []
            names = [str((c.get("function") or {}).get("name")) for c in calls if isinstance(c, dict)]
            if names:
                body.append(el("div", "calls: ", ", ".join(names), class_="small"))
        elif kind == "tool":
            body.append(el("b", str(e.get("name", "?"))))
            body.append(el("div", _json(e.get("arguments"), ARGS_CHARS), class_="ev-args"))
            body.append(_outcome(e.get("result")))
        elif kind in ("error", "retry"):
            body.append(el("span", _cut(str(e.get("error", "")), 400), class_="ev-err"))
            if kind == "retry":
                body.append(el("span", f" · attempt {e.get('attempt')} · waited {seconds(e.get('delay_s'))}", class_="small muted"))
        elif kind == "end":
            body.append(f"{e.get('status', '')} · {e.get('end_reason', '')}" + (f" · {e.get('steps')} steps" if e.get("steps") is not None else ""))
        else:
            rest = {k: v for k, v in e.items() if k not in {"type", "t", "step"}}
            body.append(el("span", _json(rest, ARGS_CHARS), class_="small"))
        items.append(el("li", head, el("div", *body, class_="ev-body"), class_=f"ev ev-{kind}"))
    more = len(events) - MAX_EVENTS
    if more > 0:
        items.append(el("li", f"… {more} more events in transcript.jsonl", class_="ev muted"))
    if not items:
        return el("p", "The transcript is empty.", class_="small muted")
    return el("ol", *items, class_="transcript")
