"""The redline engine: read, edit, comment on and accept/reject Word tracked changes.

Public API (docs/ARCHITECTURE.md): :class:`RedlineDocument` and the records it hands out.
"""

from .document import Paragraph, RedlineDocument
from .types import Comment, Finding, Revision, Segment

__all__ = ["RedlineDocument", "Paragraph", "Segment", "Comment", "Revision", "Finding"]
