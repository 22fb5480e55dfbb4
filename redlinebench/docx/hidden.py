"""Whether a Word reader can see a run's text (SPEC §5.1 ``hidden_text``), run by run.

Text can be in the document and still invisible on the page: hidden (``w:vanish``,
``w:specVanish``, ``w:webHidden``), coloured like what is behind it, set under 4 pt, squeezed,
condensed or shifted off its line or the page, in a symbol font, or in a merged-away cell. The
rendering model (``render``) owns the rule and the integrity audit checks with it; the judges' view
marks such text and the heuristic judge gives it no credit, through :class:`Visibility`, which asks
the model for one run at a time and decides a document in which nothing could hide text with one scan.
"""

from __future__ import annotations

from .render import rendering


class Visibility:
    """Answers "can a Word reader see this run?" for one document: the rendering model's answer
    (``render.Rendering.reason``: the run's effective formatting in its paragraph, cell, frame and
    page), so the judges' view marks exactly what the integrity audit checks."""

    def __init__(self, doc) -> None:
        self._model = rendering(doc)
        #: no run of the document can be hidden (the usual case: one C-level scan decides it)
        self.never = self._model.nothing_hides()

    def reason(self, run) -> str | None:
        """Why ``run``'s text is invisible to a Word reader, or None when it is visible."""
        if run is None or self.never:
            return None
        return self._model.reason(run)


__all__ = ["Visibility"]
