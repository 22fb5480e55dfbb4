"""How providers report prompt caching, simulated for the loopback fakes.

Two behaviours, as the providers document them:

- **automatic** (OpenAI, Gemini 2.5+, DeepSeek): a request whose leading blocks (tools, then the
  messages one by one) are byte-identical to a prefix an earlier request sent is served that
  prefix from cache, reported as ``prompt_tokens_details.cached_tokens``; no marker needed, and
  (as OpenAI) nothing is cached under ``MIN_CACHED_TOKENS``.
- **marked** (Anthropic, Bedrock/Vertex Claude): only a prefix ending at a block carrying
  ``cache_control`` is written (``cache_creation_input_tokens``); a later request reads
  (``cache_read_input_tokens``) the longest earlier-written prefix that ends at one of its own
  breakpoints or up to ``LOOKBACK`` blocks before one. Unmarked requests cache nothing.

Tokens are counted with litellm's bundled cl100k tokenizer (offline). The store is bounded.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Iterable

MIN_CACHED_TOKENS = 1024   # OpenAI: shorter prompts are never cached
LOOKBACK = 20              # Anthropic: blocks before a breakpoint checked for an earlier write
MAX_ENTRIES = 50_000       # bounded: the oldest prefixes are forgotten first


def count_tokens(text: str) -> int:
    try:
        import litellm

        return len(litellm.encoding.encode(text, disallowed_special=()))
    except Exception:  # noqa: BLE001  a fake must not fail on its own bookkeeping
        return max(1, len(text) // 4)


def _canon(block: Any) -> str:
    """A block as bytes-to-compare: markers are not part of the content a provider hashes."""
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
        for key in ("content", "tool_calls"):
            if isinstance(block.get(key), list):
                block[key] = [_strip(b) for b in block[key]]
    return json.dumps(block, sort_keys=True, ensure_ascii=False)


def _strip(b: Any) -> Any:
    return {k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b


def _text_of(block: Any) -> str:
    """What counts as tokens: every string inside the block (structure costs a little extra)."""
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                if k not in ("cache_control", "type", "role", "id", "tool_call_id", "tool_use_id"):
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(block)
    return "\n".join(out)


def marked(block: Any) -> bool:
    """Whether a block (or one of its content parts) carries ``cache_control``."""
    if not isinstance(block, dict):
        return False
    if "cache_control" in block:
        return True
    content = block.get("content")
    return isinstance(content, list) and any(isinstance(p, dict) and "cache_control" in p for p in content)


class PromptCache:
    """The cache one fake provider keeps across requests (thread-safe, bounded)."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def _chain(self, blocks: Iterable[Any]) -> list[tuple[str, int]]:
        """(hash of the prefix ending at block i, tokens up to and including block i)."""
        h = hashlib.sha256()
        total = 0
        out = []
        for block in blocks:
            h.update(_canon(block).encode())
            h.update(b"\x00")
            total += count_tokens(_text_of(block)) + 4
            out.append((h.hexdigest(), total))
        return out

    def _remember(self, key: str, tokens: int) -> None:
        self._seen[key] = tokens
        self._seen.move_to_end(key)
        while len(self._seen) > MAX_ENTRIES:
            self._seen.popitem(last=False)

    def automatic(self, blocks: list[Any]) -> tuple[int, int]:
        """(prompt tokens, cached tokens) of an OpenAI-style request; every prefix is remembered."""
        chain = self._chain(blocks)
        total = chain[-1][1] if chain else 0
        cached = 0
        with self._lock:
            for key, tokens in chain:
                if key in self._seen:
                    cached = tokens
            for key, tokens in chain:
                self._remember(key, tokens)
        if cached < MIN_CACHED_TOKENS:
            cached = 0
        return total, cached

    def marked(self, blocks: list[Any], marks: list[int]) -> tuple[int, int, int]:
        """(uncached input, cache read, cache write) tokens of an Anthropic-style request.

        ``marks`` are the indices of blocks carrying ``cache_control``.
        """
        chain = self._chain(blocks)
        total = chain[-1][1] if chain else 0
        read = 0
        with self._lock:
            for m in marks:
                for i in range(m, max(-1, m - LOOKBACK - 1), -1):
                    if chain[i][0] in self._seen:
                        read = max(read, chain[i][1])
                        break
            last_mark = max(marks) if marks else -1
            write = max(0, chain[last_mark][1] - read) if last_mark >= 0 else 0
            for m in marks:
                self._remember(*chain[m])
        return total - read - write, read, write
