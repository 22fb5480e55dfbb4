"""Static checks on a generated page: parsed with lxml, the way a browser would see the tree."""

from __future__ import annotations

from pathlib import Path

import lxml.html


def parse(path: Path):
    return lxml.html.fromstring(path.read_text(encoding="utf-8"))


def assert_safe(tree) -> None:
    """Exactly our one script, no event-handler attributes, nothing fetched from anywhere."""
    scripts = tree.xpath("//script")
    assert len(scripts) == 1 and not scripts[0].get("src")
    for node in tree.iter():
        if not isinstance(node.tag, str):
            continue
        for name, value in node.attrib.items():
            assert not name.lower().startswith("on"), (node.tag, name)
            if name in {"src", "xlink:href", "action"}:
                assert value.startswith("#") or value.startswith("data:"), (node.tag, name, value)
            if name == "href":  # in-page anchors, or relative links to the run's own files (never a URL)
                assert value.startswith("#") or (":" not in value and not value.startswith("/")), value
    assert not tree.xpath("//img|//iframe|//object|//embed|//link[@rel='stylesheet']")
    csp = tree.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp


def text(tree) -> str:
    return tree.text_content()
