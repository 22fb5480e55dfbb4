"""Write small but real .docx redlines (tracked changes, numbered clauses, threaded comments).

Raw WordprocessingML on purpose: the report tests must not depend on the engine to *build* their
input, only (optionally) to read it.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (
    f'xmlns:w="{W}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
    'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="w14 w15"'
)
DATE = "2026-11-20T10:00:00Z"


@dataclass
class Para:
    """(kind, text, author) runs; kind in text|ins|del. level: numbering level (None = unnumbered)."""

    runs: list[tuple[str, str, str | None]]
    level: int | None = None
    heading: bool = False


@dataclass
class Cmt:
    cid: int
    author: str
    text: str
    para: int
    parent: int | None = None
    done: bool = False


@dataclass
class Doc:
    paras: list[Para]
    comments: list[Cmt] = field(default_factory=list)


def _t(tag: str, text: str) -> str:
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f"<w:{tag}{space}>{escape(text)}</w:{tag}>"


def _body(doc: Doc) -> str:
    rid = 100
    out = []
    for i, p in enumerate(doc.paras):
        ppr = ""
        if p.heading:
            ppr = '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>'
        elif p.level is not None:
            ppr = f'<w:pPr><w:numPr><w:ilvl w:val="{p.level}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
        roots = [c for c in doc.comments if c.para == i and c.parent is None]
        replies = [c for c in doc.comments if c.para == i and c.parent is not None]
        starts = "".join(f'<w:commentRangeStart w:id="{c.cid}"/>' for c in roots + replies)
        runs = []
        for kind, text, author in p.runs:
            if kind == "text":
                runs.append(f"<w:r>{_t('t', text)}</w:r>")
            elif kind == "ins":
                rid += 1
                runs.append(f'<w:ins w:id="{rid}" w:author="{escape(author or "", {chr(34): "&quot;"})}" w:date="{DATE}"><w:r>{_t("t", text)}</w:r></w:ins>')
            else:
                rid += 1
                runs.append(f'<w:del w:id="{rid}" w:author="{escape(author or "", {chr(34): "&quot;"})}" w:date="{DATE}"><w:r>{_t("delText", text)}</w:r></w:del>')
        ends = ""
        for c in roots + replies:
            ends += (f'<w:commentRangeEnd w:id="{c.cid}"/><w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr>'
                     f'<w:commentReference w:id="{c.cid}"/></w:r>')
        out.append(f"<w:p>{ppr}{starts}{''.join(runs)}{ends}</w:p>")
    return "".join(out)


def _para_id(cid: int) -> str:
    return f"{0x10000000 + cid:08X}"


def write_docx(path: Path, doc: Doc) -> Path:
    ct = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">',
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>',
          '<Default Extension="xml" ContentType="application/xml"/>',
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
          '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>',
          '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>']
    rels = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">',
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>',
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>']
    parts: dict[str, str] = {}
    if doc.comments:
        ct.append('<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>')
        ct.append('<Override PartName="/word/commentsExtended.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"/>')
        rels.append('<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>')
        rels.append('<Relationship Id="rId4" Type="http://schemas.microsoft.com/office/2011/relationships/commentsExtended" Target="commentsExtended.xml"/>')
        cs = []
        ex = []
        for c in doc.comments:
            a = escape(c.author, {'"': "&quot;"})
            cs.append(f'<w:comment w:id="{c.cid}" w:author="{a}" w:date="{DATE}" w:initials="RC">'
                      f'<w:p w14:paraId="{_para_id(c.cid)}" w14:textId="{_para_id(c.cid)}"><w:pPr><w:pStyle w:val="CommentText"/></w:pPr>'
                      f'<w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:annotationRef/></w:r><w:r>{_t("t", c.text)}</w:r></w:p></w:comment>')
            parent = f' w15:paraIdParent="{_para_id(c.parent)}"' if c.parent is not None else ""
            ex.append(f'<w15:commentEx w15:paraId="{_para_id(c.cid)}"{parent} w15:done="{1 if c.done else 0}"/>')
        parts["word/comments.xml"] = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments {NS}>{"".join(cs)}</w:comments>'
        parts["word/commentsExtended.xml"] = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w15:commentsEx {NS}>{"".join(ex)}</w15:commentsEx>'
    ct.append("</Types>")
    rels.append("</Relationships>")
    parts["[Content_Types].xml"] = "".join(ct)
    parts["_rels/.rels"] = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
    parts["word/_rels/document.xml.rels"] = "".join(rels)
    parts["word/document.xml"] = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{_body(doc)}'
                                  '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>')
    parts["word/numbering.xml"] = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering {NS}>'
        '<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/>'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
        '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>'
        '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2.%3"/></w:lvl>'
        '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>')
    parts["word/styles.xml"] = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {NS}>'
        '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="CommentText"><w:name w:val="annotation text"/></w:style>'
        '<w:style w:type="character" w:styleId="CommentReference"><w:name w:val="annotation reference"/></w:style>'
        '</w:styles>')
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("[Content_Types].xml", "_rels/.rels", *sorted(k for k in parts if k not in ("[Content_Types].xml", "_rels/.rels"))):
            z.writestr(name, parts[name])
    return path


# ------------------------------------------------------------------ engine-shaped stand-in

@dataclass(frozen=True)
class _Seg:
    kind: str
    text: str
    author: str | None = None
    revision_id: str | None = None
    date: str | None = None
    inserted_by: str | None = None


@dataclass
class _Par:
    id: str
    index: int
    number: str | None
    style: str | None
    in_table: bool
    flags: list[str]
    segments: list[_Seg]
    comment_ids: list[str]


@dataclass(frozen=True)
class _Com:
    id: str
    author: str
    date: str
    parent: str | None
    paragraph_ids: list[str]
    anchor_text: str
    text: str
    resolved: bool


@dataclass
class StandIn:
    paragraphs: list[_Par]
    comments: list[_Com]


def standin(doc: Doc) -> StandIn:
    """The same document in the shape of the engine's ``RedlineDocument`` (ARCHITECTURE.md contract),
    with clause numbers computed the simple way the fixture numbers them."""
    counters = [0, 0, 0]
    paras, rev = [], 0
    for i, p in enumerate(doc.paras):
        number = None
        if p.level is not None:
            counters[p.level] += 1
            for k in range(p.level + 1, 3):
                counters[k] = 0
            number = ".".join(str(c) for c in counters[: p.level + 1]) + ("." if p.level == 0 else "")
        segs = []
        for kind, text, author in p.runs:
            if kind != "text":
                rev += 1
            segs.append(_Seg(kind, text, author, f"rev-{rev}" if kind != "text" else None, DATE if author else None))
        cids = [f"cmt-{c.cid}" for c in doc.comments if c.para == i]
        flags = (["has_revisions"] if any(k != "text" for k, _, _ in p.runs) else []) + (["has_comments"] if cids else [])
        paras.append(_Par(f"p-{i + 1:03d}", i, number, "Heading1" if p.heading else None, False, flags, segs, cids))
    comments = []
    for c in doc.comments:
        anchor = "".join(t for k, t, _ in doc.paras[c.para].runs if k != "del")
        comments.append(_Com(f"cmt-{c.cid}", c.author, DATE, f"cmt-{c.parent}" if c.parent is not None else None,
                             [f"p-{c.para + 1:03d}"], anchor, c.text, c.done))
    return StandIn(paras, comments)
