"""Comment threads: reading them, starting them, replying, and keeping Word's five parts in step.

Parts: comments.xml (bodies), commentsExtended.xml (thread parent and resolved flag, keyed
by the paraId of each comment's last paragraph), commentsIds.xml (durable ids),
commentsExtensible.xml (UTC dates) and people.xml (authors). paraIds, textIds and durableIds
are derived from a hash of the input document and a counter, so runs are reproducible.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..errors import ToolFailure, id_number, internal_error, shown
from .anchor import AnchorError, locate, sanitize
from .oxml import NSMAP, make_element, nsdecls, qn
from .oxml.parser import fragment
from .package import CT_WML, RT_BASE
from .runs import (
    REVISION_WRAPPERS,
    W_AUTHOR,
    W_CREF,
    W_CRE,
    W_CRS,
    W_DATE,
    W_ID,
    W_P,
    W_PPR,
    W_R,
    is_first_content,
    is_last_content,
    walk_paragraph,
)
from .transaction import Transaction
from .types import Comment

RT_COMMENTS = RT_BASE + "comments"
RT_COMMENTS_EX = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
RT_COMMENTS_IDS = "http://schemas.microsoft.com/office/2016/09/relationships/commentsIds"
RT_COMMENTS_EXT = "http://schemas.microsoft.com/office/2018/08/relationships/commentsExtensible"
RT_PEOPLE = "http://schemas.microsoft.com/office/2011/relationships/people"
RT_STYLES = RT_BASE + "styles"

W14_PARAID = qn("w14:paraId")
W14_TEXTID = qn("w14:textId")
W15_PARAID = qn("w15:paraId")
W15_PARENT = qn("w15:paraIdParent")
W15_DONE = qn("w15:done")
PARA_ID_LIMIT = 0x80000000
DURABLE_LIMIT = 0x7FFFFFFF

_PART_SPECS = {
    "comments": ("word/comments.xml", RT_COMMENTS, "comments", "w:comments"),
    "commentsExtended": ("word/commentsExtended.xml", RT_COMMENTS_EX, "commentsExtended", "w15:commentsEx"),
    "commentsIds": ("word/commentsIds.xml", RT_COMMENTS_IDS, "commentsIds", "w16cid:commentsIds"),
    "commentsExtensible": ("word/commentsExtensible.xml", RT_COMMENTS_EXT, "commentsExtensible",
                           "w16cex:commentsExtensible"),
    "people": ("word/people.xml", RT_PEOPLE, "people", "w15:people"),
}
_ROOT_PREFIXES = ("w", "r", "mc", "w14", "w15", "w16cid", "w16cex")


# ---------------------------------------------------------------------------- reading
def _comment_text(comment) -> str:
    return "\n".join(walk_paragraph(p).current for p in comment.iterfind(qn("w:p"))).strip()


def _last_para_id(comment) -> str | None:
    paras = comment.findall(qn("w:p"))
    return paras[-1].get(W14_PARAID) if paras else None


def _extended(doc) -> dict[str, tuple[str | None, bool]]:
    part = doc.part_for(RT_COMMENTS_EX)
    if part is None:
        return {}
    out = {}
    for ex in doc.package.xml(part).iterfind(qn("w15:commentEx")):
        pid = ex.get(W15_PARAID)
        if pid:
            out[pid.upper()] = ((ex.get(W15_PARENT) or "").upper() or None,
                                ex.get(W15_DONE) in ("1", "true", "on"))
    return out


def read_comments(doc, paragraphs) -> list[Comment]:
    part = doc.part_for(RT_COMMENTS)
    if part is None:
        return []
    root = doc.package.xml(part)
    extended = _extended(doc)
    # anchors from the body walk
    starts: dict[int, tuple[int, int, int]] = {}
    ends: dict[int, tuple[int, int, int]] = {}
    refs: dict[int, tuple[int, int, int]] = {}
    for i, para in enumerate(paragraphs):
        for marker in para.markers:
            table = starts if marker.tag == "start" else ends if marker.tag == "end" else refs
            table.setdefault(marker.comment_id, (i, marker.pos, marker.index))
    raw = []
    by_para_id: dict[str, str] = {}
    for el in root.iterfind(qn("w:comment")):
        try:
            number = int(el.get(W_ID))
        except (TypeError, ValueError):
            continue
        cid = f"cmt-{number}"
        last = _last_para_id(el)
        if last:
            by_para_id[last.upper()] = cid
        raw.append((el, number, cid, last))
    walks: dict[int, list] = {}   # paragraph index -> its atoms: many comments may share a paragraph
    out = []
    for el, number, cid, last in raw:
        parent_pid, done = extended.get((last or "").upper(), (None, False))
        parent = by_para_id.get(parent_pid) if parent_pid else None
        first = starts.get(number) or refs.get(number)
        final = ends.get(number) or refs.get(number) or first
        paragraph_ids: list[str] = []
        anchor_text = ""
        if first is not None and final is not None:
            a, b = first[0], max(first[0], final[0])
            paragraph_ids = [paragraphs[k].id for k in range(a, b + 1)]
            visible, everything = [], []
            for k in range(a, b + 1):
                atoms = walks.get(k)
                if atoms is None:
                    atoms = walks[k] = paragraphs[k].walk().atoms
                s = first[2] if k == a and number in starts else 0
                e = final[2] if k == b and number in ends else len(atoms)
                chunk = atoms[s:e] if e >= s else []
                visible.append("".join(x.text for x in chunk if x.visible))
                everything.append("".join(x.text for x in chunk))
            anchor_text = " ".join(x for x in visible if x).strip() or " ".join(x for x in everything if x).strip()
        out.append(Comment(id=cid, author=el.get(W_AUTHOR) or "", date=el.get(W_DATE), parent=parent,
                           paragraph_ids=paragraph_ids, anchor_text=anchor_text, text=_comment_text(el),
                           resolved=done))
    return out


# ---------------------------------------------------------------------------- parts
def _ensure_root_ns(doc, part: str):
    """Make sure the part's root declares every prefix we write (rebuilding it if needed)."""
    root = doc.package.xml(part)
    missing = [p for p in _ROOT_PREFIXES if root.nsmap.get(p) != NSMAP[p]]
    if not missing:
        return root
    doc.package.will_change(part)   # the children move to a new root: keep the old one whole
    nsmap = dict(root.nsmap)
    for prefix in _ROOT_PREFIXES:
        nsmap.setdefault(prefix, NSMAP[prefix])
    new = make_element("w:" + root.tag.split("}")[1], nsmap=nsmap) if root.tag.startswith("{" + NSMAP["w"]) \
        else make_element(_prefixed(root.tag), nsmap=nsmap)
    for key, value in root.attrib.items():
        new.set(key, value)
    _ignorable(new)
    for child in list(root):
        new.append(child)
    doc.package._xml[part] = new
    doc.package.mark_dirty(part)
    return new


def _prefixed(clark: str) -> str:
    uri, local = clark[1:].split("}")
    for prefix, value in NSMAP.items():
        if value == uri:
            return f"{prefix}:{local}"
    raise ValueError(clark)


def _ignorable(root) -> None:
    key = qn("mc:Ignorable")
    have = (root.get(key) or "").split()
    for prefix in ("w14", "w15", "w16cid", "w16cex"):
        if prefix not in have and root.nsmap.get(prefix) == NSMAP[prefix]:
            have.append(prefix)
    root.set(key, " ".join(have))


def _part(doc, kind: str):
    """The part of ``kind`` (creating, relating and registering it when absent)."""
    name, reltype, ctype, root_tag = _PART_SPECS[kind]
    existing = doc.part_for(reltype)
    if existing is not None:
        return existing, _ensure_root_ns(doc, existing)
    while doc.package.has(name):
        name = name.replace(".xml", "1.xml")
    prefix, local = root_tag.split(":")
    root = fragment(f'<{root_tag} {nsdecls(*_ROOT_PREFIXES)} mc:Ignorable="w14 w15 w16cid w16cex"/>')
    doc.package.add_part(name, root, CT_WML.format(ctype))
    doc.package.relate(doc.package.main_part, name, reltype)
    return name, root


def _existing_para_ids(doc) -> set[int]:
    """Every paraId/textId in use (computed once per document, then kept up to date)."""
    cached = getattr(doc, "_taken_para_ids", None)
    if cached is not None:
        return cached
    ids: set[int] = set()
    for reltype in (RT_COMMENTS,):
        part = doc.part_for(reltype)
        if part is None:
            continue
        for el in doc.package.xml(part).iter(qn("w:p")):
            for attr in (W14_PARAID, W14_TEXTID):
                value = el.get(attr)
                if value:
                    try:
                        ids.add(int(value, 16))
                    except ValueError:
                        pass
    for el in doc.body.iter(qn("w:p")):
        value = el.get(W14_PARAID)
        if value:
            try:
                ids.add(int(value, 16))
            except ValueError:
                pass
    doc._taken_para_ids = ids
    return ids


def _new_hex(doc, purpose: str, limit: int, taken: set[int]) -> str:
    while True:
        value = doc.deterministic_int(purpose, limit)
        if value not in taken:
            taken.add(value)
            return f"{value:08X}"


def _initials(author: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", author)
    return "".join(w[0].upper() for w in words[:4]) or "A"


def ensure_comment_styles(doc) -> None:
    """Define the CommentText / CommentReference styles when the document lacks them."""
    part = doc.part_for(RT_STYLES)
    if part is None:
        part = "word/styles.xml"
        root = fragment(f"<w:styles {nsdecls('w')}/>")
        doc.package.add_part(part, root, CT_WML.format("styles"))
        doc.package.relate(doc.package.main_part, part, RT_STYLES)
    root = doc.package.xml(part)
    have = {s.get(qn("w:styleId")) for s in root.iterfind(qn("w:style"))}
    added = False
    if "CommentText" not in have:
        root.append(fragment(
            f'<w:style {nsdecls("w")} w:type="paragraph" w:styleId="CommentText"><w:name w:val="annotation text"/>'
            '<w:basedOn w:val="Normal"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/>'
            '<w:rPr><w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr></w:style>'
            if "Normal" in have else
            f'<w:style {nsdecls("w")} w:type="paragraph" w:styleId="CommentText"><w:name w:val="annotation text"/>'
            '<w:uiPriority w:val="99"/><w:unhideWhenUsed/><w:rPr><w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr>'
            '</w:style>'))
        added = True
    if "CommentReference" not in have:
        root.append(fragment(
            f'<w:style {nsdecls("w")} w:type="character" w:styleId="CommentReference">'
            '<w:name w:val="annotation reference"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/>'
            '<w:rPr><w:sz w:val="16"/><w:szCs w:val="16"/></w:rPr></w:style>'))
        added = True
    if added:
        doc.package.mark_dirty(part)
        doc._numbering = None
        _mirror_styles_with_effects(doc, root)


RT_STYLES_WITH_EFFECTS = "http://schemas.microsoft.com/office/2007/relationships/stylesWithEffects"


def _mirror_styles_with_effects(doc, styles_root) -> None:
    """Word 2010 reads stylesWithEffects.xml when present: keep our comment styles in it too."""
    part = doc.part_for(RT_STYLES_WITH_EFFECTS)
    if part is None:
        return
    root = doc.package.xml(part)
    have = {s.get(qn("w:styleId")) for s in root.iterfind(qn("w:style"))}
    for style in styles_root.iterfind(qn("w:style")):
        sid = style.get(qn("w:styleId"))
        if sid in ("CommentText", "CommentReference") and sid not in have:
            import copy

            root.append(copy.deepcopy(style))
            doc.package.mark_dirty(part)


def _write_comment(doc, author: str, text: str, stamp: str, parent_para_id: str | None) -> tuple[int, str]:
    """Append the comment to all five parts; returns (w:id, last paraId)."""
    text = sanitize(text).strip()
    number = doc.ids.next()
    ensure_comment_styles(doc)
    cpart, croot = _part(doc, "comments")
    taken = _existing_para_ids(doc)
    comment = make_element("w:comment", {"w:id": str(number), "w:author": author, "w:date": stamp,
                                         "w:initials": _initials(author)})
    lines = text.split("\n") or [""]
    para_id = ""
    for i, line in enumerate(lines):
        p = make_element("w:p")
        para_id = _new_hex(doc, "paraId", PARA_ID_LIMIT, taken)
        p.set(W14_PARAID, para_id)
        p.set(W14_TEXTID, _new_hex(doc, "textId", PARA_ID_LIMIT, taken))
        ppr = make_element("w:pPr")
        ppr.append(make_element("w:pStyle", {"w:val": "CommentText"}))
        p.append(ppr)
        if i == 0:
            ref = make_element("w:r")
            rpr = make_element("w:rPr")
            rpr.append(make_element("w:rStyle", {"w:val": "CommentReference"}))
            ref.append(rpr)
            ref.append(make_element("w:annotationRef"))
            p.append(ref)
        if line:
            from .edits import build_runs

            for run in build_runs(line, None):
                p.append(run)
        comment.append(p)
    croot.append(comment)
    doc.package.mark_dirty(cpart)

    xpart, xroot = _part(doc, "commentsExtended")
    ex = make_element("w15:commentEx", {"w15:paraId": para_id, "w15:done": "0"})
    if parent_para_id:
        ex.set(W15_PARENT, parent_para_id)
    xroot.append(ex)
    doc.package.mark_dirty(xpart)

    durable_taken = set()
    ipart, iroot = _part(doc, "commentsIds")
    for el in iroot.iter(qn("w16cid:commentId")):
        try:
            durable_taken.add(int(el.get(qn("w16cid:durableId")) or "0", 16))
        except ValueError:
            pass
    durable = _new_hex(doc, "durableId", DURABLE_LIMIT, durable_taken)
    iroot.append(make_element("w16cid:commentId", {"w16cid:paraId": para_id, "w16cid:durableId": durable}))
    doc.package.mark_dirty(ipart)

    epart, eroot = _part(doc, "commentsExtensible")
    eroot.append(make_element("w16cex:commentExtensible", {"w16cex:durableId": durable,
                                                            "w16cex:dateUtc": stamp}))
    doc.package.mark_dirty(epart)

    ppart, proot = _part(doc, "people")
    if not any(el.get(qn("w15:author")) == author for el in proot.iter(qn("w15:person"))):
        person = make_element("w15:person", {"w15:author": author})
        person.append(make_element("w15:presenceInfo", {"w15:providerId": "None", "w15:userId": author}))
        proot.append(person)
        doc.package.mark_dirty(ppart)
    doc.invalidate()
    return number, para_id


# ---------------------------------------------------------------------------- body anchors
def _reference_run(number: int):
    run = make_element("w:r")
    rpr = make_element("w:rPr")
    rpr.append(make_element("w:rStyle", {"w:val": "CommentReference"}))
    run.append(rpr)
    run.append(make_element("w:commentReference", {"w:id": str(number)}))
    return run


def _climb(el, first: bool):
    while el.getparent() is not None and el.getparent().tag in REVISION_WRAPPERS:
        if (is_first_content(el) if first else is_last_content(el)):
            el = el.getparent()
        else:
            break
    return el


def place_range(first_el, last_el, number: int) -> None:
    """commentRangeStart before ``first_el``, commentRangeEnd + reference after ``last_el``."""
    start = make_element("w:commentRangeStart", {"w:id": str(number)})
    end = make_element("w:commentRangeEnd", {"w:id": str(number)})
    _climb(first_el, True).addprevious(start)
    anchor = _climb(last_el, False)
    anchor.addnext(end)
    # The reference is a run: never leave it inside another author's insertion or deletion
    # (rejecting or accepting theirs would take our comment with it).
    holder = end
    node = end.getparent()
    while node is not None and node.tag != W_P:
        if node.tag in REVISION_WRAPPERS:
            holder = node
        node = node.getparent()
    holder.addnext(_reference_run(number))


def place_on_paragraph(p, number: int) -> None:
    start = make_element("w:commentRangeStart", {"w:id": str(number)})
    ppr = p.find(W_PPR)
    if ppr is not None:
        ppr.addnext(start)
    else:
        p.insert(0, start)
    p.append(make_element("w:commentRangeEnd", {"w:id": str(number)}))
    p.append(_reference_run(number))


def anchor_new_comment(doc, first_el, last_el, text: str, author: str, stamp: str) -> str:
    number, _ = _write_comment(doc, author, text, stamp, None)
    place_range(first_el, last_el, number)
    doc.touch()
    return f"cmt-{number}"


def anchor_paragraph_comment(doc, p, text: str, author: str, stamp: str) -> str:
    number, _ = _write_comment(doc, author, text, stamp, None)
    place_on_paragraph(p, number)
    doc.touch()
    return f"cmt-{number}"


def _comment_element(doc, number: int):
    part = doc.part_for(RT_COMMENTS)
    if part is None:
        return None
    for el in doc.package.xml(part).iterfind(qn("w:comment")):
        if el.get(W_ID) == str(number):
            return el
    return None


def _after_members(el, members: set[str], *, starts_only: bool):
    """The last of the thread's markers directly following ``el`` (or ``el`` itself)."""
    last = el
    for sib in el.itersiblings():
        if starts_only and sib.tag == W_CRS and sib.get(W_ID) in members:
            last = sib
        elif not starts_only and sib.tag == W_CRE and sib.get(W_ID) in members:
            last = sib
        elif not starts_only and sib.tag == W_R and sib.find(W_CREF) is not None \
                and sib.find(W_CREF).get(W_ID) in members:
            last = sib
        else:
            break
    return last


def _thread_parents(doc) -> dict[int, int]:
    """comment number -> parent comment number, from comments.xml + commentsExtended.xml only."""
    part = doc.part_for(RT_COMMENTS)
    if part is None:
        return {}
    extended = _extended(doc)
    by_para: dict[str, int] = {}
    last_para: dict[int, str] = {}
    for el in doc.package.xml(part).iterfind(qn("w:comment")):
        try:
            number = int(el.get(W_ID))
        except (TypeError, ValueError):
            continue
        last = (_last_para_id(el) or "").upper()
        if last:
            by_para[last] = number
            last_para[number] = last
    out = {}
    for number, last in last_para.items():
        parent_pid, _ = extended.get(last, (None, False))
        if parent_pid and parent_pid in by_para and by_para[parent_pid] != number:
            out[number] = by_para[parent_pid]
    return out


def _parse_cid(value) -> int:
    number = id_number(value, "cmt")
    if number is None:
        raise ToolFailure("comment_not_found", f"reply_to must be a comment id such as \"cmt-3\", got {shown(value)}")
    return number


def add_comment(doc, *, author: str, text: str, paragraph_id: str | None = None, span: str | None = None,
                reply_to: str | None = None, date: datetime | None = None) -> str:
    """Start a thread on a paragraph (or a span of it), or reply to an existing comment."""
    from .document import format_date

    from .edits import check_author

    check_author(author)
    if not isinstance(text, str) or not sanitize(text).strip():
        raise ToolFailure("empty_comment", "comment text must not be empty")
    stamp = format_date(date)
    txn = None
    try:
        txn = Transaction(doc)
        if reply_to is not None:
            comment_id = _reply(doc, txn, author, text, stamp, reply_to, paragraph_id)
        else:
            comment_id = _new_thread(doc, txn, author, text, stamp, paragraph_id, span)
        txn.commit()
    except ToolFailure:
        txn.rollback()
        raise
    except Exception as exc:  # the model sees why; the document is as before
        if txn is not None:
            txn.rollback()
        raise ToolFailure("runtime_error", internal_error(exc)) from exc
    return comment_id


def _refuse_growth(doc, p, where: str, text: str) -> None:
    from .document import editable

    refusal = editable(doc, p, text=len(text))
    if refusal is not None:
        code, message = refusal.split(": ", 1)
        raise ToolFailure(code, f"{where}: {message}")


def _new_thread(doc, txn, author, text, stamp, paragraph_id, span) -> str:
    if not isinstance(paragraph_id, str):
        raise ToolFailure("paragraph_not_found", "paragraph_id is required for a new comment thread")
    p = doc.element_for(paragraph_id)
    if p is None:
        raise ToolFailure("paragraph_not_found", f"no paragraph {shown(paragraph_id)}; use the [p-NNN] ids "
                          "from read_document")
    _refuse_growth(doc, p, paragraph_id, text)
    txn.guard(p)
    if span is not None and (not isinstance(span, str) or not span.strip()):
        span = None
    if span is not None:
        try:
            match = locate(walk_paragraph(p).current, span)
        except AnchorError as exc:
            message = exc.message
            if exc.code == "ambiguous":  # a comment's span has no context/occurrence fields to offer
                message = message.split(";")[0] + "; quote a longer span that occurs once"
            raise ToolFailure(exc.code, f"{message} ({paragraph_id})",
                              **({"candidates": exc.candidates} if exc.candidates else {})) from None
        from .edits import _isolate

        inside = [a for a in _isolate(p, match.start, match.end, doc.ids.next) if a.text]
        if not inside:
            raise ToolFailure("text_not_found", "the span covers no text")
        number, _ = _write_comment(doc, author, text, stamp, None)
        place_range(inside[0].all_runs[0], inside[-1].all_runs[-1], number)
    else:
        number, _ = _write_comment(doc, author, text, stamp, None)
        place_on_paragraph(p, number)
    doc.touch()
    return f"cmt-{number}"


def _reply(doc, txn, author, text, stamp, reply_to, paragraph_id) -> str:
    target = _parse_cid(reply_to)
    comment_el = _comment_element(doc, target)
    if comment_el is None:
        raise ToolFailure("comment_not_found", f"no comment cmt-{target}; use the cmt-N ids from read_document")
    # threads are one level deep: a reply to a reply points at the root
    parents = _thread_parents(doc)
    root_number = target
    seen = set()
    while root_number in parents and root_number not in seen:
        seen.add(root_number)
        root_number = parents[root_number]
    root_id = f"cmt-{root_number}"
    starts = {el.get(W_ID): el for el in doc.body.iter(W_CRS)}
    refs = {el.get(W_ID): el for el in doc.body.iter(W_CREF)}
    ends = {el.get(W_ID): el for el in doc.body.iter(W_CRE)}
    root_start = starts.get(str(root_number))
    root_ref = refs.get(str(root_number))
    fallback = None
    if root_start is None and root_ref is None:
        fallback = doc.element_for(paragraph_id) if isinstance(paragraph_id, str) else None
        if fallback is None:
            raise ToolFailure("comment_not_anchored", f"{root_id} has no anchor in the document body; "
                              "give a valid paragraph_id to anchor the reply")
    anchors = [el for el in (root_start, root_ref, ends.get(str(root_number)), fallback) if el is not None]
    for el in anchors:
        holder = next((a for a in el.iterancestors(W_P)), el if el.tag == W_P else None)
        if holder is not None:
            _refuse_growth(doc, holder, root_id, text if el is anchors[0] else "")
    txn.guard(*anchors)
    root_el = _comment_element(doc, root_number) if root_number != target else comment_el
    root_para_id = _last_para_id(root_el) if root_el is not None else None
    if root_para_id is None and root_el is not None:
        # an old comment without paraIds: give its last paragraph one so the thread can key on it
        paras = root_el.findall(qn("w:p"))
        if paras:
            doc.package.will_change(doc.part_for(RT_COMMENTS))   # an existing comment changes
            taken = _existing_para_ids(doc)
            root_para_id = _new_hex(doc, "paraId", PARA_ID_LIMIT, taken)
            paras[-1].set(W14_PARAID, root_para_id)
            paras[-1].set(W14_TEXTID, _new_hex(doc, "textId", PARA_ID_LIMIT, taken))
            cpart, _ = _part(doc, "comments")
            doc.package.mark_dirty(cpart)
            xpart, xroot = _part(doc, "commentsExtended")
            xroot.append(make_element("w15:commentEx", {"w15:paraId": root_para_id, "w15:done": "0"}))
            doc.package.mark_dirty(xpart)
    number, _ = _write_comment(doc, author, text, stamp, root_para_id)
    if root_start is not None or root_ref is not None:
        # Word's nesting: start(root) start(r1) start(r2) .. text .. end(root) ref(root)
        # end(r1) ref(r1) end(r2) ref(r2): a new reply goes after the thread's existing ones.
        members = {str(root_number)} | {str(n) for n, parent in parents.items() if parent == root_number}
        start = make_element("w:commentRangeStart", {"w:id": str(number)})
        end = make_element("w:commentRangeEnd", {"w:id": str(number)})
        if root_start is not None:
            _after_members(root_start, members, starts_only=True).addnext(start)
        if root_ref is not None:
            ref_run = root_ref.getparent()
            if root_start is None:
                ref_run.addprevious(start)
            _after_members(ref_run, members, starts_only=False).addnext(end)
        else:
            (ends.get(str(root_number)) or root_start).addnext(end)
        end.addnext(_reference_run(number))
    else:
        place_on_paragraph(fallback, number)
    doc.touch()
    return f"cmt-{number}"
