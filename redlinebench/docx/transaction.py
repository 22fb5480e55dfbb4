"""All-or-nothing document operations: an edit, a comment or a reservation either completes or
leaves every part byte for byte as it was, whatever step fails.

Copying the whole main part for every operation would cost milliseconds per edit, so the body is
guarded by *blocks*: the top-level body children an operation will touch (the paragraph or table
holding each target, plus the next block, which a paragraph join rewrites) are deep-copied before
it starts and put back on failure, together with anything inserted between them. Other parts are
only ever appended to (comments, people, styles, relationships): the package records each one's
length on first access and cuts the new children off on failure; the rare change to existing
content (:meth:`Package.will_change`) copies the part first. The document's own counters (revision ids,
paragraph ids, the deterministic id stream) are restored too, so a failed operation followed by a
good one gives the same bytes as the good one alone.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

from .oxml import qn

W_P = qn("w:p")
_BLOCKS = (qn("w:p"), qn("w:tbl"), qn("w:sdt"))


class Transaction:
    """The state of one document before an operation; :meth:`rollback` puts it back."""

    def __init__(self, doc) -> None:
        self._doc = doc
        self._body = doc.body
        self._ids_next = doc.ids._next
        self._id_seq = doc._id_seq
        self._pids = dict(doc._pids)
        self._els = dict(doc._els)
        self._next_pid = doc._next_pid
        self._numbering = doc._numbering
        taken = getattr(doc, "_taken_para_ids", None)
        self._taken_copy = set(taken) if taken is not None else None
        # copies of the guarded run of body children, and its untouched neighbours
        self._copies: list = []
        self._pairs: list[tuple] = []
        self._prev = None
        self._sentinel = None
        self._guarded = False
        self._open = True
        self._pkg_state = doc.package.begin_transaction()   # last: nothing above can leave it open

    # ------------------------------------------------------------------ guarding the body
    def _top(self, el):
        node = el
        while node is not None and node.getparent() is not self._body:
            node = node.getparent()
        return node

    def guard(self, *elements) -> None:
        """Protect the body blocks holding ``elements`` (call before they are changed)."""
        tops = [t for t in (self._top(el) for el in elements if el is not None) if t is not None]
        if not tops:
            return
        body = self._body
        index = [body.index(t) for t in tops]   # C-level scans: no proxy per body child
        first, last = min(index), max(index)
        node = body[last].getnext()
        while node is not None:   # through the next block: a paragraph join rewrites it
            last += 1
            if node.tag in _BLOCKS:
                break
            node = node.getnext()
        if self._guarded:
            # the guarded run lies strictly between prev and sentinel, which are never changed
            lo = body.index(self._prev) + 1 if self._prev is not None else 0
            hi = body.index(self._sentinel) - 1 if self._sentinel is not None else len(body) - 1
        else:
            lo, hi = first, first - 1
        # everything is built aside and stored at the end: a guard that fails half-way leaves
        # the transaction as it was (its rollback must not rebind ids to copies never put back)
        pairs: list[tuple] = []
        before = [self._remember(body[i], pairs) for i in range(min(first, lo), lo)]
        after = [self._remember(body[i], pairs) for i in range(hi + 1, max(last, hi) + 1)]
        lo, hi = min(first, lo), max(last, hi)
        prev = body[lo - 1] if lo > 0 else None
        sentinel = body[hi + 1] if hi + 1 < len(body) else None
        self._copies = before + self._copies + after
        self._pairs += pairs
        self._prev, self._sentinel, self._guarded = prev, sentinel, True

    @staticmethod
    def _remember(block, pairs: list):
        clone = copy.deepcopy(block)
        if block.tag == W_P:
            pairs.append((block, clone))
        else:
            pairs.extend(zip(block.iter(W_P), clone.iter(W_P)))
        return clone

    # ------------------------------------------------------------------ ending
    def commit(self) -> None:
        if self._open:   # closed only once the package has let go: a failure here still rolls back
            self._doc.package.end_transaction(self._pkg_state, rollback=False)
            self._open = False

    def rollback(self) -> None:
        if not self._open:
            return
        self._open = False
        doc = self._doc
        if self._guarded:
            body = self._body
            node = self._prev.getnext() if self._prev is not None else (body[0] if len(body) else None)
            while node is not None and node is not self._sentinel:
                following = node.getnext()
                body.remove(node)
                node = following
            anchor = self._prev
            for clone in self._copies:
                if anchor is None:
                    body.insert(0, clone)
                else:
                    anchor.addnext(clone)
                anchor = clone
        doc.package.end_transaction(self._pkg_state, rollback=True)
        doc.ids._next = self._ids_next
        doc._id_seq = self._id_seq
        doc._pids = self._pids
        doc._els = self._els
        doc._next_pid = self._next_pid
        for old, new in self._pairs:
            doc.rebind_paragraph(old, new)
        doc._numbering = None   # its trees may be the ones just replaced by their copies
        doc._taken_para_ids = self._taken_copy
        doc.invalidate()


@contextmanager
def atomic(doc, *elements) -> Iterator[Transaction]:
    """Run the block as one operation on ``doc``: on any exception everything is put back."""
    txn = Transaction(doc)
    try:
        txn.guard(*elements)
        yield txn
    except BaseException:
        txn.rollback()
        raise
    else:
        if txn._open:
            txn.commit()
