"""A paragraph as a sequence of atoms, and the run surgery that edits rely on.

An *atom* is the smallest piece of a paragraph's text that the engine reasons about: part of
a ``w:t`` (splittable), a tab, a break, or an atomic unit (a whole field showing its cached
result, a symbol, a drawing). Each atom knows its revision context (plain, inserted, deleted,
moved) and its position in the *current* text (insertions shown, deletions omitted). Views,
anchoring and edits all work on this one walk, so offsets cannot drift between them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from .mc import MC_ALTERNATE, chosen_branch
from .oxml import make_element, qn
from .symbols import sym_text

W_P = qn("w:p")
W_R = qn("w:r")
W_T = qn("w:t")
W_DELTEXT = qn("w:delText")
W_INSTR = qn("w:instrText")
W_DELINSTR = qn("w:delInstrText")
W_INS = qn("w:ins")
W_DEL = qn("w:del")
W_MOVEFROM = qn("w:moveFrom")
W_MOVETO = qn("w:moveTo")
W_PPR = qn("w:pPr")
W_RPR = qn("w:rPr")
W_RPRCHANGE = qn("w:rPrChange")
W_FLDCHAR = qn("w:fldChar")
W_FLDSIMPLE = qn("w:fldSimple")
W_HYPERLINK = qn("w:hyperlink")
W_CRS = qn("w:commentRangeStart")
W_CRE = qn("w:commentRangeEnd")
W_CREF = qn("w:commentReference")
W_ID = qn("w:id")
W_AUTHOR = qn("w:author")
W_DATE = qn("w:date")
# structure tags (tables, sections, content controls, property changes), shared by the engine
W_TBL = qn("w:tbl")
W_TR = qn("w:tr")
W_TC = qn("w:tc")
W_TRPR = qn("w:trPr")
W_SECTPR = qn("w:sectPr")
W_SDTCONTENT = qn("w:sdtContent")
W_PPRCHANGE = qn("w:pPrChange")
W_VAL = qn("w:val")
XML_SPACE = qn("xml:space")

REVISION_WRAPPERS = {W_INS: "ins", W_DEL: "del", W_MOVEFROM: "move_from", W_MOVETO: "move_to"}
#: Containers whose runs belong to the paragraph text.
TRANSPARENT = {qn(t) for t in ("w:hyperlink", "w:smartTag", "w:sdtContent", "w:customXml", "w:dir", "w:bdo")}
W_SDT = qn("w:sdt")
#: Elements that hold paragraph content (used to decide whether a child is "first").
CONTENT_TAGS = {W_R, W_INS, W_DEL, W_MOVEFROM, W_MOVETO, W_HYPERLINK, W_FLDSIMPLE, W_SDT,
                qn("w:smartTag"), qn("w:customXml"), qn("w:dir"), qn("w:bdo"), qn("m:oMath"),
                qn("m:oMathPara")}
VISIBLE = {"text", "ins", "move_to"}

_SIMPLE_CHARS = {
    qn("w:tab"): "\t",
    qn("w:ptab"): "\t",
    qn("w:br"): "\n",
    qn("w:cr"): "\n",
    qn("w:noBreakHyphen"): "\u2011",
}
_ATOMIC_OBJECTS = {qn(t) for t in ("w:drawing", "w:pict", "w:object", "w:footnoteReference",
                                     "w:endnoteReference", "w:ruby", "w:embeddedObject", "mc:AlternateContent")}
W_SYM = qn("w:sym")
W_RUBY = qn("w:ruby")
_INSTR = qn("w:instr")
_FLDCHARTYPE = qn("w:fldCharType")
_CHAR = qn("w:char")
_FONT = qn("w:font")


@dataclass(eq=False, slots=True)
class Atom:
    text: str
    run: object                  # the (first) w:r carrying it
    node: object | None          # w:t / w:delText for splittable text, else None
    kind: str                    # text | ins | del | move_from | move_to
    rev: object | None           # innermost revision wrapper
    outer: object | None         # for a del/move_from inside an ins/moveTo: that wrapper
    atomic: bool = False
    runs: list | None = None     # every run of an atomic unit (a field may span several)
    instr: str = ""              # field instruction, for fields
    start: int = 0               # position in the current text

    @property
    def splittable(self) -> bool:
        return not self.atomic and self.node is not None

    @property
    def all_runs(self) -> list:
        return self.runs if self.runs else [self.run]

    @property
    def visible(self) -> bool:
        return self.kind in VISIBLE

    @property
    def end(self) -> int:
        return self.start + (len(self.text) if self.kind in VISIBLE else 0)


@dataclass(slots=True)
class Marker:
    tag: str          # "start" | "end" | "ref"
    comment_id: int
    pos: int          # current-text position
    element: object
    index: int = 0    # number of atoms before it in document order


@dataclass(slots=True)
class Walk:
    atoms: list[Atom]
    markers: list[Marker]

    @property
    def current(self) -> str:
        return "".join(a.text for a in self.atoms if a.kind in VISIBLE)

    @property
    def original(self) -> str:
        return "".join(
            a.text for a in self.atoms if a.kind in ("text", "move_from") or (a.kind == "del" and a.outer is None)
        )


class _Field:
    __slots__ = ("atom", "depth", "result")

    def __init__(self, atom: Atom) -> None:
        self.atom = atom
        self.depth = 1
        self.result = False


def _context(stack: list) -> tuple[str, object | None, object | None]:
    kind, rev, outer = "text", None, None
    for wrapper in stack:
        k = REVISION_WRAPPERS[wrapper.tag]
        if k in ("del", "move_from"):
            if kind in ("ins", "move_to"):
                outer = rev
            kind, rev = k, wrapper
        elif kind in ("del", "move_from"):
            continue
        else:
            kind, rev = k, wrapper
    return kind, rev, outer


def walk_paragraph(p) -> Walk:
    """Atoms and comment markers of ``p`` in document order, positions set."""
    atoms: list[Atom] = []
    markers: list[Marker] = []
    stack: list = []
    fld: list[_Field] = []   # open complex field (outermost first)

    def emit_text(run, node, text, kind, rev, outer):
        if fld:
            f = fld[0]
            if run not in f.atom.runs:
                f.atom.runs.append(run)
            if all(x.result for x in fld):
                f.atom.text += text
            return
        atoms.append(Atom(text, run, node, kind, rev, outer))

    def visit_run(run):
        kind, rev, outer = _context(stack) if stack else ("text", None, None)
        for child in run:
            tag = child.tag
            if tag == W_RPR:
                continue
            if tag == W_T or tag == W_DELTEXT:
                text = child.text
                if text:
                    if fld:
                        emit_text(run, child, text, kind, rev, outer)
                    else:
                        atoms.append(Atom(text, run, child, kind, rev, outer))
                elif fld and run not in fld[0].atom.runs:
                    fld[0].atom.runs.append(run)
            elif tag in _SIMPLE_CHARS:
                if fld:
                    emit_text(run, None, _SIMPLE_CHARS[tag], kind, rev, outer)
                else:
                    atoms.append(Atom(_SIMPLE_CHARS[tag], run, child, kind, rev, outer, atomic=True, runs=[run]))
            elif tag == W_FLDCHAR:
                ftype = child.get(_FLDCHARTYPE)
                if ftype == "begin":
                    if fld:
                        fld.append(_Field(fld[0].atom))
                        if run not in fld[0].atom.runs:
                            fld[0].atom.runs.append(run)
                    else:
                        atom = Atom("", run, None, kind, rev, outer, atomic=True, runs=[run])
                        atoms.append(atom)
                        fld.append(_Field(atom))
                elif fld:
                    if run not in fld[0].atom.runs:
                        fld[0].atom.runs.append(run)
                    if ftype == "separate":
                        fld[-1].result = True
                    elif ftype == "end":
                        fld.pop()
            elif tag == W_INSTR or tag == W_DELINSTR:
                if fld:
                    if run not in fld[0].atom.runs:
                        fld[0].atom.runs.append(run)
                    if len(fld) == 1 and child.text:
                        fld[0].atom.instr += child.text
            elif tag == W_SYM:
                text = sym_text(child.get(_FONT), child.get(_CHAR))
                if fld:
                    emit_text(run, None, text, kind, rev, outer)
                else:
                    atoms.append(Atom(text, run, child, kind, rev, outer, atomic=True, runs=[run]))
            elif tag == W_RUBY and not fld:
                # ruby: the base text and its annotation are both on the page
                atoms.append(Atom(_ruby_text(child), run, child, kind, rev, outer, atomic=True, runs=[run]))
            elif tag in _ATOMIC_OBJECTS:
                if fld:
                    if run not in fld[0].atom.runs:
                        fld[0].atom.runs.append(run)
                else:
                    atoms.append(Atom("", run, child, kind, rev, outer, atomic=True, runs=[run]))
            elif tag == W_CREF:
                markers.append(Marker("ref", _int(child.get(W_ID)), 0, child))

    def visit(el):
        for child in el:
            tag = child.tag
            if tag == W_R:
                visit_run(child)
            elif tag in REVISION_WRAPPERS:
                stack.append(child)
                visit(child)
                stack.pop()
            elif tag in TRANSPARENT:
                visit(child)
            elif tag == W_SDT:
                content = child.find(qn("w:sdtContent"))
                if content is not None:
                    visit(content)
            elif tag == MC_ALTERNATE:
                # runs in alternate content at paragraph level: the branch Word renders is the text
                branch = chosen_branch(child)
                if branch is not None:
                    visit(branch)
            elif tag == W_FLDSIMPLE:
                if fld:
                    visit(child)
                    continue
                kind, rev, outer = _context(stack)
                atom = Atom("", None, None, kind, rev, outer, atomic=True, runs=[], instr=child.get(_INSTR) or "")
                atoms.append(atom)
                f = _Field(atom)
                f.result = True
                fld.append(f)
                visit(child)
                fld.remove(f)
                if atom.runs:
                    atom.run = atom.runs[0]
                    # a tracked change inside the field (w:fldSimple/w:del|w:ins around its runs) is
                    # the field's: take it from the wrappers between the first run and the field
                    inner = [a for a in atom.run.iterancestors() if a is not child and a in child.iterdescendants()]
                    inner = [a for a in reversed(inner) if a.tag in REVISION_WRAPPERS]
                    if inner:
                        atom.kind, atom.rev, atom.outer = _context(stack + inner)
                else:
                    atoms.remove(atom)
            elif tag == W_CRS:
                markers.append(Marker("start", _int(child.get(W_ID)), 0, child))
            elif tag == W_CRE:
                markers.append(Marker("end", _int(child.get(W_ID)), 0, child))

    try:
        visit(p)
    finally:
        # ``visit`` calls itself through its closure cell: a cycle that held this walk's atoms,
        # lists and lxml proxies until a collection, which then freed every walk of a read at once
        visit = None  # noqa: F841
    # positions: markers are interleaved by document order, so recompute via a second pass
    _assign_positions(p, atoms, markers)
    return Walk(atoms, markers)


def _ruby_text(ruby) -> str:
    """``base(annotation)`` of a ``w:ruby``: what the reader sees, as one piece of text."""
    def text(tag):
        el = ruby.find(qn(tag))
        return "".join(t.text or "" for t in el.iter(W_T)) if el is not None else ""
    base, annotation = text("w:rubyBase"), text("w:rt")
    return f"{base}({annotation})" if annotation else base


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _assign_positions(p, atoms: list[Atom], markers: list[Marker]) -> None:
    pos = 0
    for atom in atoms:
        atom.start = pos
        if atom.kind in VISIBLE:
            pos += len(atom.text)
    if not markers:
        return
    # A marker's position is the current-text offset of the content preceding it.
    order = {}
    for i, el in enumerate(p.iter()):
        order[el] = i
    keyed = []
    for atom in atoms:
        first = atom.node if atom.node is not None else (atom.runs[0] if atom.runs else atom.run)
        keyed.append((order.get(first, 0), atom))
    # both lists are in document order: one merge pass (linear, even for hostile marker counts)
    keyed.sort(key=lambda item: item[0])
    k = 0
    position = 0
    for marker in sorted(markers, key=lambda m: order.get(m.element, 0)):
        idx = order.get(marker.element, 0)
        while k < len(keyed) and keyed[k][0] < idx:
            position = keyed[k][1].end
            k += 1
        marker.pos = position
        marker.index = k


# ---------------------------------------------------------------------------- surgery
def set_text(node, text: str) -> None:
    node.text = text
    if text and (text[0].isspace() or text[-1].isspace()):
        node.set(XML_SPACE, "preserve")
    elif XML_SPACE in node.attrib:
        del node.attrib[XML_SPACE]


def _clone_run_shell(run, fresh_id=None):
    """An empty run with ``run``'s attributes and properties (a copied rPrChange gets a new id)."""
    new = make_element("w:r")
    for key, value in run.attrib.items():
        new.set(key, value)
    rpr = run.find(W_RPR)
    if rpr is not None:
        clone = copy.deepcopy(rpr)
        if fresh_id is not None:
            for change in clone.iter(W_RPRCHANGE):
                change.set(W_ID, str(fresh_id()))
        new.append(clone)
    return new


def split_text_atom(atom: Atom, offset: int, fresh_id=None) -> None:
    """Split the run of a text atom so that ``atom.text[:offset]`` ends a run."""
    node, run = atom.node, atom.run
    full = node.text or ""
    # the atom's text is the whole node text
    head, tail = full[:offset], full[offset:]
    new = _clone_run_shell(run, fresh_id)
    tail_node = make_element("w:" + node.tag.split("}")[1])
    set_text(tail_node, tail)
    set_text(node, head)
    new.append(tail_node)
    following = list(node.itersiblings())
    for el in following:
        new.append(el)
    run.addnext(new)


def split_run_before(run, child, fresh_id=None) -> object:
    """Move ``child`` and everything after it in ``run`` into a new run right after it."""
    new = _clone_run_shell(run, fresh_id)
    moving = [child] + list(child.itersiblings())
    for el in moving:
        new.append(el)
    run.addnext(new)
    return new


def content_children(run) -> list:
    return [c for c in run if c.tag != W_RPR]


def explode_run(run, fresh_id=None) -> list:
    """Give every content child of ``run`` its own run (rPr copied); returns the runs."""
    kids = content_children(run)
    runs = [run]
    current = run
    for child in kids[1:]:
        current = split_run_before(current, child, fresh_id)
        runs.append(current)
    return runs


def is_first_content(el) -> bool:
    for prev in el.itersiblings(preceding=True):
        if prev.tag in CONTENT_TAGS:
            return False
    return True


def is_last_content(el) -> bool:
    for nxt in el.itersiblings():
        if nxt.tag in CONTENT_TAGS:
            return False
    return True


def split_wrapper_before(wrapper, child, new_id: int | None):
    """Split ``wrapper`` (ins, hyperlink...) so that ``child`` starts a new copy of it."""
    new = make_element("w:" + wrapper.tag.split("}")[1])
    for key, value in wrapper.attrib.items():
        new.set(key, value)
    if new_id is not None and wrapper.tag in REVISION_WRAPPERS:
        new.set(W_ID, str(new_id))
    for el in [child] + list(child.itersiblings()):
        new.append(el)
    wrapper.addnext(new)
    return new


def mark_deleted_run(run) -> None:
    """Turn a run's text into deleted text (``w:t`` -> ``w:delText``, instr likewise)."""
    for child in run:
        if child.tag == W_T:
            child.tag = W_DELTEXT
        elif child.tag == W_INSTR:
            child.tag = W_DELINSTR


def mark_undeleted_run(run) -> None:
    for child in run:
        if child.tag == W_DELTEXT:
            child.tag = W_T
        elif child.tag == W_DELINSTR:
            child.tag = W_INSTR
