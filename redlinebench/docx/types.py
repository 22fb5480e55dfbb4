"""The plain records the engine hands out (frozen: callers cannot corrupt the document)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SegmentKind = Literal["text", "ins", "del", "move_from", "move_to"]
RevisionType = Literal["ins", "del", "move_from", "move_to", "format", "para_ins", "para_del"]


@dataclass(frozen=True)
class Segment:
    """A piece of a paragraph's text as Word's review pane shows it."""

    kind: SegmentKind
    text: str
    author: str | None = None
    revision_id: str | None = None
    date: str | None = None
    inserted_by: str | None = None


@dataclass(frozen=True)
class Comment:
    id: str
    author: str
    date: str | None
    parent: str | None
    paragraph_ids: list[str] = field(default_factory=list)
    anchor_text: str = ""
    text: str = ""
    resolved: bool = False


@dataclass(frozen=True)
class Revision:
    id: str
    type: RevisionType
    author: str
    date: str | None
    paragraph_id: str | None
    text: str


# One Finding class for the package: the validator (engine-QA) defines it.
from .validate import Finding  # noqa: E402

__all__ = ["Segment", "Comment", "Revision", "Finding"]
