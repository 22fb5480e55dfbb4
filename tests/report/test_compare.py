import pytest

from redlinebench.report import ReportError, write_comparison
from redlinebench.report._compare import collect_entries
from redlinebench.report._load import load_run

from .htmlcheck import assert_safe, parse, text
from .runfixture import HOSTILE, JUDGES, MODELS


def _name(row) -> str:
    """A leaderboard row's model: its name, or the whole of it on hover when the name is cut to fit one line."""
    bdi = row.xpath("./td[2]//bdi")[0]
    return bdi.get("title") or bdi.text_content()


def test_leaderboard_orders_models_and_disambiguates_repeated_labels(run_dir, run_b, tmp_path):
    out = write_comparison([run_dir, run_b], tmp_path / "compare.html")
    tree = parse(out)
    rows = tree.xpath("//section[@id='leaderboard']//tbody/tr")
    # a name longer than the leaderboard's one line is cut in the middle, whole on hover
    got = [(_name(r), r.xpath("./td[3]")[0].text_content())
           for r in rows]
    # gemini (run-b, first trials): (0.8 + 0.8333 + 0.8 + 1.0) / 4 = 0.8583; gpt-5.5 in run-b: one cell, 0.8
    assert got == [("google/gemini-3.5-flash", "85.8"), (MODELS[0], "84.8"), (MODELS[0], "80.0"),
                   (MODELS[1], "42.5"), (f"evil/{HOSTILE}", "0.0")]
    labels = [e.label for e in collect_entries([load_run(run_dir), load_run(run_b)])]
    assert f"{MODELS[0]} [run-b]" in labels and f"{MODELS[0]} [run-2026-11-29-demo]" in labels
    assert rows[2].xpath("./td[4]")[0].text_content() == "80.0 – 80.0"  # one cell: CI [v, v]
    shown = rows[-1].xpath("./td[2]//bdi/text()")[0]
    assert shown.startswith("evil/<script>") and "…" in shown and len(shown) <= 32
    assert_safe(tree)


def test_rubric_heatmap_rates_by_hand(run_dir, tmp_path):
    tree = parse(write_comparison([run_dir], tmp_path / "c.html"))
    table = tree.xpath("//section[@id='rubrics']//details//table")[0]
    head = [th.text_content() for th in table.xpath("./thead/tr/th")]
    assert head[4:6] == MODELS[:2] and head[6] != MODELS[2] and head[6].startswith("evil/")  # 39 characters: cut
    assert [th.get("title") for th in table.xpath("./thead/tr/th")][4:] == MODELS      # the full name on hover
    rows = {(r.xpath("./td[1]")[0].text_content(), r.xpath("./td[2]")[0].text_content()):
            [c.text_content() for c in r.xpath("./td")[4:]] for r in table.xpath("./tbody/tr")}
    # r3 of s1-t1 for gpt-5.5: trial 1 FAIL (1/3), trial 2 PASS -> 50; opus FAIL -> 0; evil model did not run it
    assert rows[("redline-s1-t1-g01a", "r3")] == ["50", "0", "not run"]
    # r4 is a penalty rubric: gpt-5.5 FAIL twice (satisfied 100), opus PASS 2/3 judges -> present -> 0
    assert rows[("redline-s1-t1-g01a", "r4")] == ["100", "0", "not run"]
    # the gate failure has no rubric rows; the incomplete trial still counts: r1 PASS in both gpt trials
    assert rows[("redline-s1-t2-g01a", "r1")] == ["100", "not run", "not run"]
    differ = tree.xpath("//section[@id='rubrics']/h3")[0].text_content()
    assert differ.startswith("Where the models differ most")


def test_sections_and_agreement(run_dir, tmp_path):
    tree = parse(write_comparison([run_dir], tmp_path / "c.html"))
    for sid in ("leaderboard", "profile", "cells", "rubrics", "cost", "judges", "method"):
        assert tree.xpath(f"//section[@id='{sid}']"), sid
    assert len(tree.xpath("//section[@id='cells']//div[@class='chart-wide']//svg")) == 3  # and 3 drawn for a phone
    judges = [r.xpath("./td[1]")[0].text_content() for r in tree.xpath("(//section[@id='judges']//table)[1]/tbody/tr")]
    assert judges == sorted(JUDGES)
    assert "were unanimous" in text(tree)
    assert tree.xpath("//section[@id='cost']//svg//circle")


def test_different_judging_is_flagged(run_dir, run_b, tmp_path):
    import json
    s = json.loads((run_b / "metrics_summary.json").read_text())
    s["judge_method"] = "heuristic"
    (run_b / "metrics_summary.json").write_text(json.dumps(s))
    body = text(parse(write_comparison([run_dir, run_b], tmp_path / "c.html")))
    assert "Different judging across runs" in body and "never publishable" in body


def test_bad_inputs(tmp_path):
    with pytest.raises(ReportError, match="at least one run directory"):
        write_comparison([], tmp_path / "c.html")
    with pytest.raises(ReportError, match="does not exist"):
        write_comparison([tmp_path / "missing"], tmp_path / "c.html")


def test_links_to_run_reports_and_category_profile(run_dir, run_b, tmp_path):
    from redlinebench.report import write_run_report

    write_run_report(run_dir)  # run_b has no report.html: no link for it
    out = tmp_path / "out" / "compare.html"
    tree = parse(write_comparison([run_dir, run_b], out))
    links = tree.xpath("//section[@id='leaderboard']//a[text()='run report']/@href")
    assert links and set(links) == {"../runs/run-2026-11-29-demo/report.html"}
    assert (out.parent / links[0]).resolve() == (run_dir / "report.html").resolve()
    profile = tree.xpath("//section[@id='profile']//figure")[0]
    assert "Category profile" in profile.text_content() and "Acceptance" in profile.text_content()


def test_the_same_run_given_twice_is_compared_once(run_dir, tmp_path):
    tree = parse(write_comparison([run_dir, run_dir / "." , run_dir], tmp_path / "c.html"))
    assert len(tree.xpath("//section[@id='leaderboard']//tbody/tr")) == 3


def test_errored_trials_count_as_incomplete_as_in_metrics_summary(run_dir, tmp_path):
    """An errored trial is not averaged in, like a judging-incomplete one; the scorer counts both in n_incomplete and
    the comparison's Incomplete column must say the same, not 0 (the errored trial was otherwise invisible there)."""
    import json

    from .runfixture import slug

    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "grade.json").unlink()
    (tdir / "metrics.json").write_text(json.dumps({"model": MODELS[1], "status": "errored", "error": "RateLimitError"}))
    path = run_dir / "metrics_summary.json"
    summary = json.loads(path.read_text())
    for e in summary["leaderboard"]:  # as the runner writes it: the errored trial is one of the unscored ones
        if e["model"] == MODELS[1]:
            e["n_incomplete"] += 1
    path.write_text(json.dumps(summary))
    tree = parse(write_comparison([run_dir], tmp_path / "c.html"))
    head = [th.text_content() for th in tree.xpath("//section[@id='leaderboard']//thead/tr/th")]
    col = head.index("Incomplete") + 1
    got = {_name(r): r.xpath(f"./td[{col}]")[0].text_content()
           for r in tree.xpath("//section[@id='leaderboard']//tbody/tr")}
    assert got == {e["model"]: str(e["n_incomplete"]) for e in summary["leaderboard"]}
    assert got[MODELS[1]] == "1" and got[MODELS[0]] == "1"


def test_a_right_to_left_model_name_is_isolated_in_running_text(tmp_path, bench):
    """As in the run report: where a model name runs on with other text it sits in a <bdi>, so an Arabic name does
    not pull the comma or the words after it into its right-to-left run."""
    from .runfixture import PLAN, build_run

    model = "local/نموذج-عربي"
    run = build_run(tmp_path / "runs", bench=bench, plan={model: PLAN[MODELS[1]], MODELS[0]: PLAN[MODELS[0]]})
    tree = parse(write_comparison([run], tmp_path / "c.html"))
    mixed = []
    for node in tree.iter():
        if not isinstance(node.tag, str) or node.tag == "bdi" or node.xpath("ancestor::*[local-name()='svg']"):
            continue
        own, tail = node.text or "", node.tail or ""
        if model in own and own.strip() != model:
            mixed.append((node.tag, node.get("class"), own[:80]))
        if model in tail and node.getparent().text_content().strip() != model:
            mixed.append((node.getparent().tag, node.getparent().get("class"), tail[:80]))
    assert mixed == [], "\n".join(map(str, mixed))


def test_link_to_a_run_report_in_a_folder_with_url_characters(run_dir, tmp_path):
    """A run folder named with '#', '?', '%' or a space is linked percent-encoded, as the run report links its
    trial files: unencoded, '#' cut the link short and the browser opened a folder that does not exist."""
    from urllib.parse import unquote

    from redlinebench.report import write_run_report

    odd = run_dir.rename(run_dir.with_name("run #2? 100% done"))
    write_run_report(odd)
    tree = parse(write_comparison([odd], tmp_path / "c.html"))
    hrefs = [a.get("href") for a in tree.xpath("//a[.='run report']")]
    assert len(hrefs) == len(MODELS)
    for href in hrefs:
        assert not any(c in href for c in "#? ") and (tmp_path / unquote(href)).resolve() == (odd / "report.html").resolve()


def test_the_leaderboard_shows_the_share_of_input_served_from_the_prompt_cache(run_dir, tmp_path):
    """Issue 14.2: cache reads recorded in metrics.json appear beside the tokens (none recorded: a dash)."""
    import json

    before = parse(write_comparison([run_dir], tmp_path / "a.html"))
    head = [th.text_content() for th in before.xpath("//section[@id='leaderboard']//thead/tr/th")]
    col = head.index("Cached input") + 1
    assert {r.xpath(f"./td[{col}]")[0].text_content() for r in before.xpath("//section[@id='leaderboard']//tbody/tr")} \
        == {"—"}
    for path in (run_dir / "trials").rglob("metrics.json"):
        m = json.loads(path.read_text())
        if m.get("model") == MODELS[0]:
            m.update(tokens_in=1000, cache_read_tokens=750)
            path.write_text(json.dumps(m))
    tree = parse(write_comparison([run_dir], tmp_path / "b.html"))
    cells = {_name(r): r.xpath(f"./td[{col}]")[0].text_content()
             for r in tree.xpath("//section[@id='leaderboard']//tbody/tr")}
    assert cells[MODELS[0]] == "75.0%"


def test_a_model_has_one_colour_on_its_report_and_on_the_comparison(run_dir, run_b, tmp_path):
    """Issue 26: colours were dealt in page order (the report's model order, the comparison's ranking), so one
    model was blue on its report and orange on the comparison."""
    from redlinebench.report import write_run_report

    report = parse(write_run_report(run_dir))
    cards = {c.xpath("./div[@class='model']")[0].text_content(): c.get("style").split("--c:")[1]
             for c in report.xpath("//section[@id='summary']//div[@class='card']")}
    compare = parse(write_comparison([run_b, run_dir], tmp_path / "compare.html"))
    rows = compare.xpath("//section[@id='leaderboard']//tbody/tr")
    board = {_name(r): r.xpath(".//span[@class='swatch']")[0].get("style")
             .split("background:")[1] for r in rows}
    assert set(cards) == set(MODELS) and cards[MODELS[1]] == board[MODELS[1]]   # once in the comparison: same colour
    assert cards[MODELS[2]] == board[f"evil/{HOSTILE}"]
    # the model in both runs: one of its two entries keeps the model's colour, the other gets another one
    repeated = [r.xpath(".//span[@class='swatch']")[0].get("style") for r in rows
                if r.xpath("./td[2]//bdi")[0].text_content() == MODELS[0]]  # short: shown whole
    assert len(repeated) == 2 and len(set(repeated)) == 2 and f"background:{cards[MODELS[0]]}" in repeated
    colours = [r.xpath(".//span[@class='swatch']")[0].get("style") for r in rows]
    assert len(set(colours)) == len(colours)                                     # entries never share a colour
    from redlinebench.report._palette import model_colours

    # the rule itself: order does not matter, a clash moves the later name in name order, the palette is shared
    assert model_colours([("b", "b"), ("a", "a")]) == model_colours([("a", "a"), ("b", "b")])
    pick = model_colours([("x", "x")])["x"]
    assert model_colours([("x", "x"), ("y [r2]", "x")])["x"] == pick
