"""Colours chosen to stay legible for colour-blind readers and on paper.

Models use the Okabe-Ito palette (minus its pale yellow), one colour per model name on every page
(:func:`model_colours`); heatmaps use one sequential ramp
from pale to deep blue so "darker = better" reads the same everywhere; redline authors get
saturated ink colours like Word's review pane, with the first author fixed per page.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

MODEL_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#404040", "#8C564B")
AUTHOR_COLOURS = ("#C0262D", "#1F5FAD", "#2E7D32", "#7B3FA0", "#A35C00", "#00796B", "#AD1457", "#455A64")

# Sequential ramp (0 -> 1): pale sand to deep blue.
_RAMP = (
    (0.0, (0xF7, 0xF4, 0xEA)),
    (0.25, (0xD9, 0xE6, 0xF2)),
    (0.5, (0x9E, 0xC5, 0xE0)),
    (0.75, (0x4A, 0x8F, 0xC4)),
    (1.0, (0x08, 0x3D, 0x77)),
)


def ramp(value: float) -> str:
    """Hex colour for *value* in [0, 1] on the sequential ramp."""
    v = min(1.0, max(0.0, float(value)))
    for (x0, c0), (x1, c1) in zip(_RAMP, _RAMP[1:]):
        if v <= x1:
            t = 0.0 if x1 == x0 else (v - x0) / (x1 - x0)
            rgb = tuple(round(a + (b - a) * t) for a, b in zip(c0, c1))
            return "#%02X%02X%02X" % rgb
    return "#%02X%02X%02X" % _RAMP[-1][1]


def ink_on(value: float) -> str:
    """Text colour readable on ``ramp(value)``: white from where it beats the dark ink (about 4.2:1 either side)."""
    return "#FFFFFF" if value >= 0.8 else "#1B1B1B"


def _home(name: str) -> int:
    """A model's own slot in :data:`MODEL_COLOURS`: a stable hash of its name (not ``hash()``, which
    changes from one Python process to the next)."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % len(MODEL_COLOURS)


def _free_from(start: int, taken: set[int]) -> int:
    """The first slot from *start* on (wrapping) that no entry holds; *start* when every slot is held."""
    n = len(MODEL_COLOURS)
    return next((s % n for s in range(start, start + n) if s % n not in taken), start)


def model_colours(entries: Iterable[tuple[str, str]]) -> dict[str, str]:
    """label -> colour for the (label, model name) entries shown on one page.

    The one colour rule of the report and the comparison: a model is painted the colour of its
    name's slot, so it looks the same on every page whatever the order or the other models. Two
    entries never share a colour while the palette lasts: when a slot is already held (another
    model hashed there, or the same model from a second run), the entry takes the next free slot.
    Holders are settled in name order, not page order, so the same set of models always gets the
    same colours.
    """
    pairs = sorted(dict.fromkeys(entries), key=lambda e: (e[1], e[0]))
    slots: dict[str, int] = {}
    claimed: set[str] = set()
    for label, model in pairs:                    # each model's first entry claims its own slot
        if model not in claimed and _home(model) not in slots.values():
            slots[label] = _home(model)
            claimed.add(model)
    for label, model in pairs:                    # the others move on to a free one
        if label not in slots:
            slots[label] = _free_from(_home(model), set(slots.values()))
    return {label: MODEL_COLOURS[slot] for label, slot in slots.items()}


class ModelColours:
    """The colours of one page's models (:func:`model_colours`); a name not given up front gets its
    own slot or the next free one when asked."""

    def __init__(self, entries: Iterable[str | tuple[str, str]] = ()) -> None:
        self._assigned = model_colours((e, e) if isinstance(e, str) else e for e in entries)

    def __call__(self, label: str) -> str:
        if label not in self._assigned:
            taken = {MODEL_COLOURS.index(c) for c in self._assigned.values()}
            self._assigned[label] = MODEL_COLOURS[_free_from(_home(label), taken)]
        return self._assigned[label]


class ColourMap:
    """Assigns colours to names in order of first request; stable within one page."""

    def __init__(self, palette: tuple[str, ...]) -> None:
        self._palette = palette
        self._assigned: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self._assigned:
            self._assigned[name] = self._palette[len(self._assigned) % len(self._palette)]
        return self._assigned[name]


# Diverging ramp (-1 -> +1) for differences: orange (worse) through pale to blue (better).
_DIVERGING = (
    (-1.0, (0xB3, 0x58, 0x06)),
    (-0.5, (0xF1, 0xA3, 0x40)),
    (0.0, (0xF7, 0xF4, 0xEA)),
    (0.5, (0x6B, 0xAE, 0xD6)),
    (1.0, (0x08, 0x51, 0x9C)),
)


def diverging(value: float) -> str:
    """Hex colour for *value* in [-1, 1]: a difference's sign and size (0 is neutral)."""
    v = min(1.0, max(-1.0, float(value)))
    for (x0, c0), (x1, c1) in zip(_DIVERGING, _DIVERGING[1:]):
        if v <= x1:
            t = 0.0 if x1 == x0 else (v - x0) / (x1 - x0)
            return "#%02X%02X%02X" % tuple(round(a + (b - a) * t) for a, b in zip(c0, c1))
    return "#%02X%02X%02X" % _DIVERGING[-1][1]


def ink_on_diverging(value: float) -> str:
    """Text colour readable on ``diverging(value)``."""
    return "#FFFFFF" if abs(value) >= 0.75 else "#1B1B1B"
