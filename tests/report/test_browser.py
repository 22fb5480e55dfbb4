"""The pages as a reader gets them: headless Chromium, no console errors, no fetches, not blank."""

from __future__ import annotations

import base64
import random
import zlib

import pytest

from redlinebench.report import write_comparison, write_run_report
from redlinebench.report._html import Markup, el
from redlinebench.report._page import page as render_page

from .browser import Cdp, Chromium, png_stats
from .runfixture import MODELS, TASKS

pytestmark = pytest.mark.chromium

COMMON = {
    "text": "document.body.innerText",
    "scripts": "document.scripts.length",
    "pwned": "typeof window.__pwned",
    "svgs": "document.querySelectorAll('svg.chart').length",
}


def _assert_clean(result, *, min_height: int) -> None:
    assert result.errors == []
    assert [u for u in result.requests if not u.startswith("file://")] == []
    assert result.values["scripts"] == 1 and result.values["pwned"] == "undefined"
    stats = png_stats(result.screenshot)
    assert stats["width"] == 320 and stats["height"] >= min_height // 4
    assert stats["variance"] > 1000 and 0.03 < stats["ink"] < 0.8, stats  # neither blank nor a solid block


async def test_run_report_in_chromium(chromium, run_dir):
    page = write_run_report(run_dir)
    sort_js = """(() => { const t = document.querySelector('#tasks table'); const th = [...t.tHead.rows[0].cells]
        .find(c => c.textContent === 'Reward'); th.click(); th.click();
        return [...t.tBodies[0].rows].map(r => r.cells[th.cellIndex].textContent.trim()); })()"""
    golden_js = """new Promise(res => { const d = document.querySelector('details.trial'); d.closest('details.task').open = true;
        d.open = true; setTimeout(() => { const s = d.querySelector('[data-golden]');
        if (!s) { res(null); return; }
        const r = s.querySelectorAll('input[type=radio]');
        res([s.getAttribute('data-filled'), s.querySelectorAll('.rl-doc').length, r.length ? r[0].name : null]); }, 200); })"""
    async with Chromium(chromium) as browser:
        modes_js = """(() => { const doc = document.querySelector('details.trial .rl-doc');
            const visible = () => [...doc.querySelectorAll('.rl-p')].filter(p => p.offsetParent !== null).length;
            const dels = () => [...doc.querySelectorAll('del')].filter(d => d.offsetParent !== null).length;
            const all = [visible(), dels()];
            doc.querySelector('input.rl-mode-changes').click(); const changes = visible();
            doc.querySelector('input.rl-mode-final').click(); const final = [visible(), dels()];
            doc.querySelector('input.rl-mode-all').click();
            return [all, changes, final]; })()"""
        result = await browser.open(page, evaluate={**COMMON, "sorted": sort_js, "golden": golden_js, "modes": modes_js},
                                    scale=0.25)
    _assert_clean(result, min_height=2500)
    text = result.values["text"]
    assert "84.8" in text and "42.5" in text and "95% CI" in text
    for task_id in TASKS:
        assert task_id in text
    for model in MODELS:
        assert model in text  # the hostile model name shows as text
    assert result.values["svgs"] >= 6
    rewards = [float(x) for x in result.values["sorted"]]
    assert rewards == sorted(rewards, reverse=True) and rewards[0] == 100.0
    (all_paras, all_dels), changes, (final_paras, final_dels) = result.values["modes"]
    assert all_dels == 3 and final_dels == 0 and final_paras == all_paras  # "Final" hides deletions, keeps every clause
    assert 0 < changes < all_paras  # "Changes only" keeps the edited and commented clauses
    if result.values["golden"] is not None:  # the engine read the golden: it is copied beside the trial, ids made unique
        filled, docs, name = result.values["golden"]
        assert filled == "1" and docs == 1 and name.endswith("-g")


async def test_comparison_in_chromium(chromium, run_dir, run_b, tmp_path):
    page = write_comparison([run_dir, run_b], tmp_path / "compare.html")
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={
            **COMMON, "rows": "document.querySelectorAll('#leaderboard tbody tr').length",
            "heat": "document.querySelectorAll('#rubrics td.h').length"}, scale=0.25)
    _assert_clean(result, min_height=2000)
    assert result.values["rows"] == 5 and result.values["heat"] > 0
    assert "80.0" in result.values["text"] and "85.8" in result.values["text"]


async def test_the_checks_themselves_can_fail(chromium, tmp_path):
    """A blank page with a script error and a fetch must trip every detector used above."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body><script>missingFunction()</script>"
                    "<img src='http://192.0.2.1/x.png' width=1 height=1></body></html>")
    async with Chromium(chromium) as browser:
        result = await browser.open(page, width=1280, height=600, scale=0.25)
    assert any("missingFunction" in e for e in result.errors)
    assert any(u.startswith("http://192.0.2.1/") for u in result.requests)
    stats = png_stats(result.screenshot)
    assert stats["variance"] < 1 and stats["ink"] == 0


async def test_packed_report_expands_documents_when_opened(chromium, run_dir, tmp_path):
    page = write_run_report(run_dir, tmp_path / "packed.html", pack=True)
    open_js = """new Promise(res => { const d = document.querySelector('details.trial'); d.closest('details.task').open = true;
        d.open = true; setTimeout(() => res([d.querySelectorAll('.rl-doc').length, d.querySelectorAll('.packed').length,
        d.querySelector('.rl-doc ins') ? d.querySelector('.rl-doc ins').textContent : null]), 500); })"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={**COMMON, "opened": open_js}, scale=0.25)
    assert result.errors == [] and result.values["pwned"] == "undefined"
    docs, still_packed, first_ins = result.values["opened"]
    assert docs == 2 and first_ins  # the model's redline and the golden copied beside it, both expanded
    assert still_packed == 2  # the annotated view and the transcript stay packed until their sections are opened


async def test_task_table_filter(chromium, run_dir):
    page = write_run_report(run_dir)
    js = """(() => { const box = document.querySelector('input.filter'); box.value = 'gate failed';
        box.dispatchEvent(new Event('input')); const rows = [...document.querySelectorAll('#task-table tbody tr')];
        const shown = rows.filter(r => !r.hidden).map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent);
        box.value = ''; box.dispatchEvent(new Event('input'));
        return [shown, rows.filter(r => !r.hidden).length]; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={"filtered": js}, full_page=False, scale=0.25)
    assert result.errors == []
    shown, after_clear = result.values["filtered"]
    assert shown == [f"redline-s1-t2-g01a {MODELS[1]}"] and after_clear == 13


# Everything a reader can open, opened, then how wide the page is. Wide tables may scroll inside their
# own .tablewrap; the page itself must not, and no redline may cut off its own content (.rl-doc clips).
NARROW_JS = """new Promise(res => { document.querySelectorAll('details').forEach(d => { d.open = true; });
    setTimeout(() => res([document.documentElement.scrollWidth, window.innerWidth,
        [...document.querySelectorAll('.rl-doc')].filter(d => d.scrollWidth > d.clientWidth)
            .map(d => d.querySelector('.rl-label').textContent)]), 800); })"""


@pytest.mark.parametrize("width", [375, 320])
async def test_pages_fit_a_phone_screen(chromium, run_dir, run_b, tmp_path, width):
    pages = [write_run_report(run_dir), write_comparison([run_dir, run_b], tmp_path / "compare.html")]
    async with Chromium(chromium) as browser:
        for page in pages:
            result = await browser.open(page, width=width, height=800, full_page=False,
                                        evaluate={"closed": "[document.documentElement.scrollWidth, window.innerWidth]",
                                                  "opened": NARROW_JS})
            assert result.errors == []
            scroll_width, inner_width = result.values["closed"]
            assert inner_width == width and scroll_width <= inner_width, (page.name, result.values["closed"])
            scroll_width, inner_width, clipped = result.values["opened"]
            assert scroll_width <= inner_width and clipped == [], (page.name, result.values["opened"])


# Registered after the page's own script, so it runs after the page's beforeprint handler: what it sees is what
# the print is laid out from (browsers print right after beforeprint, without waiting for anything).
AT_PRINT_JS = """window.addEventListener('beforeprint', () => { window.__atPrint = [
    document.querySelectorAll('.packed').length, document.querySelectorAll('details:not([open])').length,
    document.querySelectorAll('.rl-doc ins').length, document.querySelectorAll('ol.transcript').length]; }); 0"""
PRINTED_JS = """(() => { const shown = n => n.getClientRects().length > 0;
    return [document.body.innerText, [...document.querySelectorAll('.rl-doc ins')].filter(shown).length,
        [...document.querySelectorAll('.rl-modes')].filter(shown).length, document.querySelectorAll('[data-filled]').length]; })()"""


async def test_printing_a_packed_report_prints_its_documents(chromium, run_dir, tmp_path):
    page = write_run_report(run_dir, tmp_path / "packed.html", pack=True)
    async with Chromium(chromium) as browser:
        result = await browser.open(page, full_page=False, evaluate={
            "closed": "document.querySelectorAll('details:not([open])').length",
            "watch": AT_PRINT_JS,
            "pdf": Cdp("Page.printToPDF"),  # the real print path: fires beforeprint and afterprint
            "at_print": "window.__atPrint",
            "after": "[document.querySelectorAll('details:not([open])').length, document.querySelectorAll('[data-filled]').length]",
            # a browser whose print dialog lets the page run: the toggle events of the sections opened for
            # printing arrive while it is still printing
            "again": "dispatchEvent(new Event('beforeprint')); new Promise(res => setTimeout(() => res(0), 300))",
            "media": Cdp("Emulation.setEmulatedMedia", {"media": "print"}),
            "printed": PRINTED_JS})
    assert result.errors == []
    assert result.values["pdf"]["data"]
    packed, closed, insertions, transcripts = result.values["at_print"]
    assert packed == 0 and closed == 0, result.values["at_print"]  # every block unpacked, every section open
    assert insertions > 0 and transcripts == 12
    # afterwards the page is as the reader left it: sections closed again, goldens not copied into every trial
    assert result.values["after"] == [result.values["closed"], 0]
    text, shown_insertions, shown_modes, filled = result.values["printed"]
    assert "stored compressed" not in text  # no packed placeholder
    assert "appears here when this trial is opened" not in text  # no empty golden slot either
    assert "PCI-DSS Standards" in text and shown_insertions == insertions and shown_modes == 0
    assert filled == 0  # the golden prints once, in its task's section, not copied beside every trial


def _deflate(data: bytes, *, level: int = 9, strategy: int = zlib.Z_DEFAULT_STRATEGY, flush_every: int = 0) -> str:
    comp = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    if flush_every:  # sync flushes put empty stored blocks between Huffman blocks, mid-byte
        out = b"".join(comp.compress(data[i:i + flush_every]) + comp.flush(zlib.Z_SYNC_FLUSH)
                       for i in range(0, len(data), flush_every))
    else:
        out = comp.compress(data)
    return base64.b64encode(out + comp.flush()).decode("ascii")


def _canonical(lengths: dict[int, int]) -> dict[int, tuple[int, int]]:
    """RFC 1951 canonical Huffman codes for {symbol: length}: {symbol: (code, length)}."""
    codes, code, prev = {}, 0, 0
    for sym, n in sorted(lengths.items(), key=lambda kv: (kv[1], kv[0])):
        code <<= n - prev
        codes[sym], code, prev = (code, n), code + 1, n
    return codes


def _handmade_deflate() -> tuple[bytes, str]:
    """A dynamic block whose end-of-block code (1 bit) is far shorter than its longest code (15 bits), then a
    stored block: an inflater that reads ahead must give the read-ahead bytes back before the stored block.
    zlib never writes such a block (its end-of-block code is always among the longest)."""
    out, acc, nbits = bytearray(), 0, 0

    def put(value: int, n: int) -> None:
        nonlocal acc, nbits
        acc |= value << nbits
        nbits += n
        while nbits >= 8:
            out.append(acc & 255)
            acc >>= 8
            nbits -= 8

    def huff(code: int, n: int) -> None:  # Huffman codes are packed most significant bit first
        put(int(format(code, f"0{n}b")[::-1], 2), n)

    lit = {256: 1, **{97 + i: i + 2 for i in range(14)}, 111: 15}  # 1/2 + 1/4 + ... + 2/2**15 == 1
    lit_codes = _canonical(lit)
    clen_codes = _canonical({n: 4 for n in range(16)})
    for value, n in [(0, 1), (2, 2), (0, 5), (0, 5), (15, 4)]:  # not final, dynamic; 257 literal/length codes,
        put(value, n)                                           # 1 distance code, 19 code-length codes
    for sym in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]:
        put(0 if sym > 15 else 4, 3)
    for sym in range(258):  # the 257 literal/length lengths, then the one (unused) distance code
        huff(*clen_codes[lit.get(sym, 0) if sym < 257 else 0])
    text = "abcdefghijklmnoaabacad" * 3 + "o"
    for ch in text:
        huff(*lit_codes[ord(ch)])
    huff(*lit_codes[256])
    stored = "then a stored block".encode()
    put(1, 1)  # final
    put(0, 2)  # stored
    if nbits:
        put(0, 8 - nbits)
    out += len(stored).to_bytes(2, "little") + (len(stored) ^ 0xFFFF).to_bytes(2, "little") + stored
    expected = text + stored.decode()
    assert zlib.decompress(bytes(out), -15).decode() == expected  # the block is valid DEFLATE
    return bytes(out), expected


async def test_page_script_inflates_every_kind_of_deflate_block(chromium, tmp_path):
    """The page's own inflate (it must be synchronous, so it is not the browser's) against zlib: stored, fixed and
    dynamic Huffman blocks, long matches, block boundaries mid-byte, and a corrupt block that fails visibly."""
    rnd = random.Random(7)
    alphabet = "abcdefghij KLMNOP\n\t.,;§é·×—“”€中文😀<>&\"'"

    def text(n: int) -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))

    clause = "The Supplier shall indemnify the Customer against all third-party claims arising from the Services. "
    cases = {
        "empty": ("", {}),
        "fixed": (text(300), {"strategy": zlib.Z_FIXED}),
        "dynamic": (clause * 3000 + text(5000), {}),  # matches at long distances, many blocks
        "stored": (text(150_000), {"level": 0}),  # several 64 KiB stored blocks
        "huffman-only": (text(80_000), {"strategy": zlib.Z_HUFFMAN_ONLY}),
        "flushed": (text(20_000) + clause * 200, {"flush_every": 777}),
        "rle": ("=" * 70_000 + text(100) + "=" * 5000, {"strategy": zlib.Z_RLE}),
        **{f"random-{i}": (text(rnd.randint(1, 4000)) * rnd.randint(1, 5), {"level": rnd.randint(1, 9)}) for i in range(20)},
    }
    blocks = [el("div", el("p", "packed"), class_="packed", id=name,
                 data_z=_deflate(el("div", body).encode("utf-8"), **opts)) for name, (body, opts) in cases.items()]
    handmade, expected = _handmade_deflate()
    cases["handmade"] = (expected, {})
    blocks.append(el("div", el("p", "packed"), class_="packed", id="handmade", data_z=base64.b64encode(handmade).decode()))
    corrupt = base64.b64decode(_deflate(el("div", clause * 50).encode("utf-8")))
    blocks.append(el("div", el("p", "packed"), class_="packed", id="corrupt",
                     data_z=base64.b64encode(corrupt[:len(corrupt) // 2]).decode()))
    path = tmp_path / "inflate.html"
    path.write_text(render_page(title="inflate", subtitle=[], nav=[], body=Markup("".join(blocks))), encoding="utf-8")
    js = """(() => { dispatchEvent(new Event('beforeprint'));
        return Object.fromEntries([...document.querySelectorAll('main > div')].map(d => [d.id, d.textContent])); })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(path, full_page=False, evaluate={"out": js})
    assert result.errors == []
    out = result.values["out"]
    for name, (body, _) in cases.items():
        assert out[name] == body, name
    assert out["corrupt"].startswith("This block could not be unpacked")


LONG = "x" * 400


async def test_long_unbroken_names_and_justifications_do_not_widen_the_page(chromium, tmp_path, bench):
    """A model name or a judge's justification with no break opportunity wraps inside its box: the page does not
    scroll sideways, and the rubric table does not hide its Judges column behind a sideways scroll."""
    import json

    from .runfixture import PLAN, build_run

    model = "openai/" + "verylongmodelname" * 12
    run = build_run(tmp_path / "runs", bench=bench, plan={model: {"redline-s1-t1-g01a": PLAN[MODELS[0]]["redline-s1-t1-g01a"]}})
    for path in run.glob("trials/*/*/*/judges/*.json"):
        data = json.loads(path.read_text())
        if data.get("justifications"):
            data["justifications"] = {k: v + " " + LONG for k, v in data["justifications"].items()}
            path.write_text(json.dumps(data))
    page = write_run_report(run)
    rubric_js = """new Promise(res => { document.querySelectorAll('details').forEach(d => { d.open = true; });
        setTimeout(() => res([...document.querySelectorAll('table.rubrics')]
            .map(t => [t.parentElement.scrollWidth, t.parentElement.clientWidth])), 800); })"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, width=1280, height=800, full_page=False,
                                    evaluate={"opened": NARROW_JS, "rubrics": rubric_js})
    assert result.errors == []
    scroll_width, inner_width, _clipped = result.values["opened"]
    assert scroll_width <= inner_width, result.values["opened"]
    assert result.values["rubrics"] and all(s <= c for s, c in result.values["rubrics"]), result.values["rubrics"]


async def test_final_and_original_views_drop_wholly_inserted_or_deleted_paragraphs(chromium, tmp_path):
    """As Word's "No Markup" / "Original" views: a paragraph that is all insertion is gone from the original and one
    that is all deletion is gone from the final text, not left behind as a numbered blank line."""
    from redlinebench.report._redline import AuthorColours, render_document

    from .docxfixture import Doc, Para, standin
    from .runfixture import ME

    doc = Doc([Para([("text", "Definitions", None)], level=0),
               Para([("text", "Kept clause.", None)], level=1),
               Para([("ins", "A whole new clause.", ME)], level=1),
               Para([("del", "A whole struck clause.", ME)], level=1),
               Para([("text", "Last clause.", None)], level=1)])
    body = render_document(standin(doc), colours=AuthorColours(), dom="d", focus_author=ME, label="L")
    path = tmp_path / "modes.html"
    path.write_text(render_page(title="modes", subtitle=[], nav=[], body=body), encoding="utf-8")
    js = """(() => { const rows = () => [...document.querySelectorAll('.rl-p')].filter(p => p.offsetParent !== null)
            .map(p => [p.querySelector('.rl-num').textContent, p.querySelector('.rl-text').innerText.trim()]);
        const out = {all: rows()}; document.querySelector('input.rl-mode-final').click(); out.final = rows();
        document.querySelector('input.rl-mode-orig').click(); out.orig = rows(); return out; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(path, evaluate={"rows": js}, full_page=False)
    assert result.errors == []
    rows = result.values["rows"]
    assert len(rows["all"]) == 5
    assert [t for _n, t in rows["final"]] == ["Definitions", "Kept clause.", "A whole new clause.", "Last clause."]
    assert [t for _n, t in rows["orig"]] == ["Definitions", "Kept clause.", "A whole struck clause.", "Last clause."]


async def test_view_mode_buttons_do_not_break_inside_on_a_phone(chromium, run_dir):
    """At 390px the four view buttons (and the section links) wrap between buttons; a label such as "Final (accept
    all)" split over two lines read as two broken pills, "Task details" as two links."""
    page = write_run_report(run_dir)
    js = """new Promise(res => { const d = document.querySelector('details.trial'); d.closest('details.task').open = true;
        d.open = true; setTimeout(() => res([...document.querySelectorAll('.rl-modes label')].filter(l => l.offsetParent)
            .concat([...document.querySelectorAll('nav.toc a')])
            .map(l => [l.textContent, l.getClientRects().length])), 300); })"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, width=390, height=800, full_page=False, evaluate={"labels": js})
    assert result.errors == []
    labels = result.values["labels"]
    assert labels and [text for text, lines in labels if lines != 1] == []


async def test_sorting_keeps_rows_without_a_value_last_both_ways(chromium, run_dir):
    """Sorting by Reward (or cost, tokens) puts an errored trial's '—' after the numbers in either direction:
    sorted high to low it used to head the table, above the best trial."""
    import json

    from .runfixture import slug

    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "grade.json").unlink()
    (tdir / "metrics.json").write_text(json.dumps({"model": MODELS[1], "status": "errored", "error": "RateLimitError"}))
    page = write_run_report(run_dir)
    js = """(() => { const t = document.querySelector('#tasks table'); const th = [...t.tHead.rows[0].cells]
        .find(c => c.textContent === 'Reward'); const i = th.cellIndex; const out = [];
        for (const _ of [0, 1]) { th.click(); out.push([...t.tBodies[0].rows].map(r => r.cells[i].textContent.trim())); }
        return out; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={"sorted": js}, full_page=False)
    assert result.errors == []
    for column in result.values["sorted"]:
        assert column[-1] == "—" and "—" not in column[:-1], column


async def test_annotated_pane_tints_insertions_not_the_legend(chromium, tmp_path):
    """Issue 26: the legend's "brackets, ++ and ~~ without one are markup." opened an insertion tint that ran to
    the end of the pane, and the real insertion stayed untinted. As a reader sees it: computed styles."""
    from redlinebench.report._redline import render_annotated

    from .test_redline import _every_construct_view

    path = tmp_path / "annot.html"
    path.write_text(render_page(title="annot", subtitle=[], nav=[], body=render_annotated(_every_construct_view())),
                    encoding="utf-8")
    js = """(() => { const deco = e => getComputedStyle(e).textDecorationLine;
        const legend = [...document.querySelectorAll('pre.annot .av-legend')];
        const under = [...document.querySelectorAll('pre.annot span')].filter(s => deco(s) === 'underline')
            .map(s => s.textContent);
        return {legend: legend.map(deco), under: under,
                struck: [...document.querySelectorAll('pre.annot span')].filter(s => deco(s) === 'line-through')
                    .map(s => s.textContent)}; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(path, evaluate={"tint": js}, full_page=False)
    assert result.errors == []
    tint = result.values["tint"]
    assert set(tint["legend"]) == {"none"}
    assert "++sixty++" in tint["under"] and "++Clause in a box.++" in tint["under"]
    assert not any(s.startswith("#") for s in tint["under"] + tint["struck"])
    assert "~~ninety~~" in tint["struck"] and "~~Moved clause.~~" in tint["struck"]
    assert "++Moved clause.++" in tint["under"]
