"""Tiny .docx packages written from inline XML (python-docx's cxml idea, for whole parts).

``docx(body)`` wraps body XML (paragraphs written with the ``w:`` prefix) into a minimal valid
package; optional parts (styles, numbering, comments...) are passed as inner XML too.
"""

from __future__ import annotations

import io
import zipfile

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (
    f'xmlns:w="{W_NS}" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
    'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'mc:Ignorable="w14 w15"'
)
CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.{}+xml"
RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/{}"


def docx(body: str, *, styles: str | None = None, numbering: str | None = None, comments: str | None = None,
         comments_ex: str | None = None, extra: dict[str, bytes] | None = None, main_ct: str | None = None,
         header: str | None = None, footnotes: str | None = None) -> bytes:
    parts: dict[str, str | bytes] = {}
    overrides = {"/word/document.xml": main_ct or CT.format("document.main")}
    rels = []
    parts["word/document.xml"] = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {NS}><w:body>{body}'
        '<w:sectPr/></w:body></w:document>'
    )
    for name, inner, root, ctype, rtype in (
        ("styles", styles, "w:styles", "styles", "styles"),
        ("numbering", numbering, "w:numbering", "numbering", "numbering"),
        ("comments", comments, "w:comments", "comments", "comments"),
        ("header1", header, "w:hdr", "header", "header"),
        ("footnotes", footnotes, "w:footnotes", "footnotes", "footnotes"),
    ):
        if inner is None:
            continue
        parts[f"word/{name}.xml"] = f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} {NS}>{inner}</{root}>'
        overrides[f"/word/{name}.xml"] = CT.format(ctype)
        rels.append((f"{name}.xml", RT.format(rtype)))
    if comments_ex is not None:
        parts["word/commentsExtended.xml"] = (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<w15:commentsEx {NS}>{comments_ex}</w15:commentsEx>')
        overrides["/word/commentsExtended.xml"] = CT.format("commentsExtended")
        rels.append(("commentsExtended.xml", "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"))
    ct = ['<?xml version="1.0" encoding="UTF-8"?>',
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">',
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>',
          '<Default Extension="xml" ContentType="application/xml"/>']
    ct += [f'<Override PartName="{k}" ContentType="{v}"/>' for k, v in overrides.items()]
    ct.append("</Types>")
    parts["[Content_Types].xml"] = "".join(ct)
    parts["_rels/.rels"] = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{RT.format("officeDocument")}" Target="word/document.xml"/></Relationships>')
    parts["word/_rels/document.xml.rels"] = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(f'<Relationship Id="rId{i + 1}" Type="{t}" Target="{n}"/>' for i, (n, t) in enumerate(rels))
        + "</Relationships>")
    for name, data in (extra or {}).items():
        parts[name] = data
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data if isinstance(data, bytes) else data.encode("utf-8"))
    return buf.getvalue()


def p(*runs: str, ppr: str = "", attrs: str = "") -> str:
    """A paragraph from run XML snippets; bare strings become plain runs."""
    inner = "".join(r if r.lstrip().startswith("<") else r_(r) for r in runs)
    return f"<w:p{(' ' + attrs) if attrs else ''}>{('<w:pPr>' + ppr + '</w:pPr>') if ppr else ''}{inner}</w:p>"


def r_(text: str, rpr: str = "") -> str:
    space = ' xml:space="preserve"' if text[:1].isspace() or text[-1:].isspace() else ""
    return f"<w:r>{('<w:rPr>' + rpr + '</w:rPr>') if rpr else ''}<w:t{space}>{text}</w:t></w:r>"


def ins(inner: str, author: str = "Other", rid: int = 900, date: str = "2025-01-01T00:00:00Z") -> str:
    return f'<w:ins w:id="{rid}" w:author="{author}" w:date="{date}">{inner}</w:ins>'


def dele(text: str, author: str = "Other", rid: int = 901, rpr: str = "") -> str:
    return (f'<w:del w:id="{rid}" w:author="{author}" w:date="2025-01-01T00:00:00Z"><w:r>'
            f'{("<w:rPr>" + rpr + "</w:rPr>") if rpr else ""}<w:delText xml:space="preserve">{text}</w:delText></w:r></w:del>')


def read_part(data: bytes, name: str) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read(name).decode("utf-8")
