"""The gate's evidence of review (SPEC §5.1): the author's tracked changes and comments that a
reader of the page can see, in every story.

A change or comment counts only when its text holds at least one *visible character*: not
whitespace, not a Unicode control, format or separator character (categories Cc, Cf, Zs, Zl, Zp:
a zero-width space, word joiner, BOM or soft hyphen is no review), and not hidden from a Word
reader (``hidden.Visibility``, the audit's rule). Every story counts: the body, headers, footers,
footnotes and endnotes (text boxes in them included; an ``mc:Fallback`` copy, which Word does not
render, does not); a comment counts when its range or reference mark stands in any of them (a
comment anchored in a footnote is as much review as one in the body).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .hidden import Visibility
from .oxml import qn
from .revision_authors import RunBase, records_difference
from .runs import REVISION_WRAPPERS, W_AUTHOR, W_CRE, W_CREF, W_CRS, W_ID, W_P, W_PPRCHANGE, W_RPRCHANGE, walk_paragraph

__all__ = ["Evidence", "author_evidence", "is_visible_char"]

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
_MC_FALLBACK = qn("mc:Fallback")
_W_COMMENT = qn("w:comment")
_W_R = qn("w:r")
_RT_COMMENTS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
#: atom kinds whose text a revision shows (inserted, struck, moved)
_CHANGED = ("ins", "del", "move_from", "move_to")


def is_visible_char(ch: str) -> bool:
    """True for a character that puts ink on the page (SPEC §5.1's visible character)."""
    return not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE_CATEGORIES


def _has_visible(text: str) -> bool:
    return any(is_visible_char(ch) for ch in text)


@dataclass(frozen=True)
class Evidence:
    """The author's work as the gate counts it."""

    changes: int                 # tracked changes with a visible character, any story
    comments: int                # comments anchored in some story, with a visible character
    invisible: int               # changes or anchored comments whose text no reader sees (blank, zero-width, hidden)
    orphans: int                 # the author's comments anchored nowhere
    others: tuple[str, ...]      # the other authors of changes and anchored comments, sorted

    @property
    def found(self) -> bool:
        return bool(self.changes or self.comments)


def author_evidence(doc, author: str) -> Evidence:
    """Count ``author``'s visible tracked changes and anchored comments in every story of ``doc``."""
    vis = Visibility(doc)
    base = RunBase(doc)

    def seen(text: str, run) -> bool:
        return _has_visible(text) and (run is None or vis.reason(run) is None)

    shown: dict[object, bool] = {}     # revision element -> carries a visible character
    others: set[str] = set()
    anchored: set[str] = set()
    for _part, root in doc.story_parts():
        for el in root.iter(W_CRS, W_CRE, W_CREF):
            anchored.add(el.get(W_ID) or "")
        # only the paragraphs holding one of the author's text revisions are walked
        hosts: dict = {}
        for el in root.iter(*REVISION_WRAPPERS):
            who = el.get(W_AUTHOR) or ""
            if who != author:
                others.add(who)
                continue
            p = next(el.iterancestors(W_P), None)
            if p is not None and not any(True for _ in p.iterancestors(_MC_FALLBACK)):
                hosts[p] = None
        for p in hosts:
            for atom in walk_paragraph(p).atoms:
                for rev in (atom.rev, atom.outer):
                    if rev is None or (rev.get(W_AUTHOR) or "") != author:
                        continue
                    if not shown.get(rev):
                        shown[rev] = atom.kind in _CHANGED and seen(atom.text, atom.run)
        for change in root.iter(W_RPRCHANGE, W_PPRCHANGE):
            who = change.get(W_AUTHOR) or ""
            if who != author:
                others.add(who)
                continue
            if change in shown or any(True for _ in change.iterancestors(_MC_FALLBACK)):
                continue
            host = change.getparent().getparent() if change.getparent() is not None else None
            if host is None or not records_difference(change, base):
                continue
            if change.tag == W_RPRCHANGE and host.tag == _W_R:
                runs = [host]
            else:   # a paragraph's properties (or its mark's): the paragraph's text shows the change
                p = host if host.tag == W_P else next(host.iterancestors(W_P), None)
                runs = [a.run for a in walk_paragraph(p).atoms if a.kind in ("text", "ins", "move_to")] \
                    if p is not None else []
            shown[change] = any(seen("".join(t.text or "" for t in run.iter(qn("w:t"))), run) for run in runs)
    changes = sum(shown.values())
    invisible = len(shown) - changes
    comments = orphans = 0
    part = doc.part_for(_RT_COMMENTS)
    if part is not None:
        for el in doc.package.xml(part).iterfind(_W_COMMENT):
            who = el.get(W_AUTHOR) or ""
            is_anchored = (el.get(W_ID) or "") in anchored
            if who != author:
                if is_anchored:
                    others.add(who)
                continue
            if not is_anchored:
                orphans += 1
                continue
            if any(seen(a.text, a.run) for p in el.iter(W_P) for a in walk_paragraph(p).atoms
                   if a.kind in ("text", "ins", "move_to")):
                comments += 1
            else:
                invisible += 1
    return Evidence(changes, comments, invisible, orphans, tuple(sorted(others - {""})))
