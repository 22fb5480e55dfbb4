from redlinebench.report._html import Markup, count, el, esc, join, money, score100, seconds, slug_id


def test_text_and_attributes_are_escaped():
    out = el("td", '<script>x</script> & "q"', title='"><img src=x onerror=alert(1)>', class_="num")
    assert out == ('<td title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" class="num">'
                   "&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;</td>")


def test_markup_passes_through_once_and_lists_join():
    inner = el("b", "<i>")
    assert el("p", inner, " & ", None, ["a", el("i", "b")]) == "<p><b>&lt;i&gt;</b> &amp; a<i>b</i></p>"
    assert isinstance(join(["<", inner]), Markup) and join(["<", inner]) == "&lt;<b>&lt;i&gt;</b>"


def test_control_characters_are_dropped_and_booleans_are_bare_attributes():
    assert esc("a\x00b\x07c\td") == "abc\td"
    assert el("input", checked=True, disabled=False, data_v=None) == "<input checked>"
    assert el("label", "x", for_="m", aria_label="y") == '<label for="m" aria-label="y">x</label>'


def test_formats():
    assert score100(0.46333) == "46.3" and score100(None) == "—" and score100(float("nan")) == "—"
    assert money(0.0042) == "$0.0042" and money(3.456) == "$3.46" and money(1234.5) == "$1,234" and money(0) == "$0"
    assert count(41000) == "41k" and count(2300) == "2.3k" and count(12) == "12" and count(2_500_000) == "2.5M"
    assert seconds(3.21) == "3.2 s" and seconds(48.5) == "48 s" and seconds(900) == "15.0 min"


def test_slug_id_is_safe_and_injective_enough():
    a, b = slug_id("trial", 'evil/<script>"'), slug_id("trial", "evil_script_")
    assert a != b
    assert all(c.isalnum() or c in "-_" for c in a)
