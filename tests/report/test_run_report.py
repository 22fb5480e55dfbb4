import json
import os

from redlinebench.report import write_run_report
from redlinebench.report._html import slug_id

from .htmlcheck import assert_safe, parse, text
from .runfixture import HOSTILE, HOSTILE_IMG, JUDGES, MODELS, TASKS, slug


def test_report_has_headlines_every_task_and_every_trial(run_dir):
    out = write_run_report(run_dir)
    assert out == run_dir / "report.html"
    tree = parse(out)
    cards = tree.xpath("//div[@class='card']")
    got = {c.xpath(".//div[@class='model']")[0].text_content(): c.xpath(".//div[@class='big']")[0].text_content() for c in cards}
    # gpt-5.5 cells (hand-computed from runfixture.PLAN; the judging-incomplete trial is listed, not averaged):
    #   1-1 (0.8 + 1.0)/2 = 0.9; 1-2 10/12 = 0.8333; 2-1 0.8; 3-4 (1 + 0.7143)/2 = 0.8572 -> mean 0.8476 -> 84.8
    # opus: 1-1 clamp((3 - 4)/10) = 0; 1-2 gate failure 0; 2-1 7/10; 3-4 1.0 -> 0.425 -> 42.5 ; evil: all FAIL -> 0.0
    assert got == {MODELS[0]: "84.8 redline_overall", MODELS[1]: "42.5 redline_overall", MODELS[2]: "0.0 redline_overall"}
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    body = text(tree)
    for e in summary["leaderboard"]:  # the CI shown is the scorer's, x 100, one decimal
        assert f"{100 * e['ci'][0]:.1f} – {100 * e['ci'][1]:.1f}" in body
    rows = tree.xpath("//section[@id='tasks']//tbody/tr")
    assert len(rows) == 13
    assert {r.xpath("./td[1]")[0].text_content() for r in rows} == set(TASKS)
    assert len(tree.xpath("//details[contains(@class,'trial')]")) == 13
    assert len(tree.xpath("//details[contains(@class,'task')]")) == len(TASKS)


def test_task_table_values(run_dir):
    tree = parse(write_run_report(run_dir))
    row = [r for r in tree.xpath("//section[@id='tasks']//tbody/tr")
           if r.xpath("./td[1]")[0].text_content() == "redline-s1-t1-g01a" and r.xpath("./td[2]")[0].text_content() == MODELS[0]
           and r.xpath("./td[5]")[0].text_content() == "2"][0]
    cells = [c.text_content().strip() for c in row.xpath("./td")]
    # trial 2: PPPF x3 -> r1, r2, r3 PASS, penalty r4 FAIL -> 10/10
    assert cells[2] == "100.0" and cells[8] == "3 / 3" and cells[3] == "graded"
    assert cells[9] == "$0.08" and cells[10] == "43k / 2.3k" and cells[11] == "50 s" and cells[12] == "6" and cells[13] == "1"


def test_rubrics_show_each_judge_and_the_panel(run_dir):
    tree = parse(write_run_report(run_dir))
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s1-t1-g01a', '1')}']")[0]
    rows = trial.xpath(".//table[contains(@class,'rubrics')]/tbody/tr")
    assert [r.xpath("./td[1]")[0].text_content() for r in rows] == ["r1", "r2", "r3", "r4"]
    r3 = rows[2]
    assert r3.xpath("./td[5]//span[contains(@class,'badge')]")[0].text_content() == "FAIL"
    votes = r3.xpath("./td[7]/span[@class='vote']")
    assert [v.xpath("./span[@class='jn']")[0].text_content() for v in votes] == JUDGES
    assert [v.xpath(".//span[contains(@class,'badge')]")[0].text_content() for v in votes] == ["FAIL", "PASS", "FAIL"]
    assert "anthropic/claude-haiku-4-5 reads Section 3: met." in votes[1].text_content()
    assert rows[0].xpath("./td[6]")[0].text_content() == "+5" and r3.xpath("./td[6]")[0].text_content() == "0"
    assert "Earned 8 − penalty 0 of 10 positive weight → reward 80.0" in trial.text_content()


def test_gate_failures_and_incomplete_judging_are_called_out(run_dir):
    tree = parse(write_run_report(run_dir))
    callouts = [c.text_content() for c in tree.xpath("//section[@id='summary']//div[contains(@class,'callout')]")]
    gate = [c for c in callouts if "failed the validity gate" in c]
    assert gate and "redline-s1-t2-g01a" in gate[0] and MODELS[1] in gate[0]
    inc = [c for c in callouts if "incomplete judging" in c]
    assert inc and f"missing {JUDGES[2]}" in inc[0]
    gate_trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[1]), 'redline-s1-t2-g01a', '1')}']")[0].text_content()
    assert "Validity gate failed: reward 0" in gate_trial and "judges were not called" in gate_trial


def test_hostile_strings_render_as_text(run_dir):
    tree = parse(write_run_report(run_dir))
    assert_safe(tree)
    body = text(tree)
    assert HOSTILE in body and HOSTILE_IMG in body  # model name, rubric, judge reasons, annotated view, config


def test_golden_stored_once_per_task_and_missing_one_explained(run_dir):
    tree = parse(write_run_report(run_dir))
    goldens = tree.xpath("//details[starts-with(@id,'x-golden-')]")
    assert len(goldens) == len(TASKS)
    s3 = tree.xpath("//details[@id='x-golden-redline-s3-t4-g01a']")[0].text_content()
    assert "No attorney golden redline for this task" in s3


def test_broken_and_missing_files_do_not_stop_the_report(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[0]) / "redline-s1-t1-g01a" / "1"
    (tdir / "grade.json").write_text("{not json", encoding="utf-8")
    (tdir / "redline.docx").write_bytes(b"PK\x03\x04 this is not a zip")
    (run_dir / "config.json").unlink()
    tree = parse(write_run_report(run_dir))
    body = text(tree)
    assert "grade.json is not valid JSON" in body and "config.json: missing" in body
    assert len(tree.xpath("//section[@id='tasks']//tbody/tr")) == 13
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s1-t1-g01a', '1')}']")[0].text_content()
    assert "not graded" in trial and "could not be displayed" in trial


def test_heuristic_runs_carry_a_warning(run_dir):
    s = json.loads((run_dir / "metrics_summary.json").read_text())
    s["judge_method"] = "heuristic"
    (run_dir / "metrics_summary.json").write_text(json.dumps(s))
    assert "must not be published" in text(parse(write_run_report(run_dir)))


def test_output_option_and_atomic_write(run_dir, tmp_path):
    out = write_run_report(run_dir, tmp_path / "elsewhere" / "r.html")
    assert out.is_file() and not (run_dir / "report.html").exists()
    assert [p for p in os.listdir(out.parent) if p.endswith(".tmp")] == []


def test_judge_files_in_both_forms_and_failed_judges(run_dir):
    tree = parse(write_run_report(run_dir))
    # list form (judge replies) for the second model
    opus = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[1]), 'redline-s2-t1-g02b', '1')}']")[0]
    r2 = opus.xpath(".//table[contains(@class,'rubrics')]/tbody/tr")[1]
    assert f"{JUDGES[0]} reads Section 2: not met. {HOSTILE_IMG}" in r2.text_content()
    # the judge that failed is listed with no verdict, and its error is shown
    inc = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s1-t2-g01a', '2')}']")[0]
    votes = inc.xpath(".//table[contains(@class,'rubrics')]/tbody/tr[1]/td[7]/span[@class='vote']")
    assert [v.xpath(".//span[contains(@class,'badge')]")[0].text_content() for v in votes] == ["PASS", "PASS", "no verdict"]
    assert f"{JUDGES[2]}: JudgeError: no valid reply after 10 attempts" in inc.text_content()
    assert "Judge cost" in inc.text_content() and "$0.01" in inc.text_content()


def test_packed_pages_carry_the_same_documents_compressed(run_dir):
    from redlinebench.report._pack import unpack

    plain_tree = parse(write_run_report(run_dir, pack=False))
    tree = parse(write_run_report(run_dir, pack=True))
    assert_safe(tree)
    packed = tree.xpath("//div[@class='packed']")
    n_docs = len(plain_tree.xpath("//div[@class='rl-doc']"))
    n_views = len(plain_tree.xpath("//pre[@class='annot']"))
    n_transcripts = len(plain_tree.xpath("//ol[@class='transcript']"))
    assert n_transcripts == 12  # every graded trial; the gate-failed one has no transcript
    assert len(packed) == n_docs + n_views + n_transcripts and not tree.xpath("//div[@class='rl-doc']")
    expanded = [unpack(p.get("data-z")) for p in packed]
    assert any(HOSTILE.replace("<", "&lt;").replace(">", "&gt;") in x for x in expanded)  # still escaped inside
    assert all("<script" not in x for x in expanded)
    # the rest of the page (headline, tables, rubrics) is not packed
    assert len(tree.xpath("//section[@id='tasks']//tbody/tr")) == 13


def test_report_is_readable_by_others(run_dir):
    old = os.umask(0o022)
    try:
        out = write_run_report(run_dir)
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_transcript_timeline(run_dir):
    tree = parse(write_run_report(run_dir))
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s1-t1-g01a', '1')}']")[0]
    events = trial.xpath(".//ol[@class='transcript']/li")
    kinds = [e.get("class").split()[1] for e in events]
    assert kinds == ["ev-start", "ev-model", "ev-tool", "ev-model", "ev-tool", "ev-retry", "ev-tool", "ev-end"]
    assert "Reading the contract first. " + HOSTILE in events[1].text_content()
    statuses = [b.text_content() for b in events[4].xpath(".//ul[@class='edits']//span[contains(@class,'badge')]")]
    assert statuses == ["ok", "anchor_failed"] and f"text_not_found: {HOSTILE_IMG}" in events[4].text_content()
    assert "unknown_comment" in events[6].text_content() and "RateLimitError: 429" in events[5].text_content()
    assert "completed · end_session · 3 steps" in events[7].text_content()
    assert "What the agent did (8 transcript events)" in trial.text_content()


def test_errored_agent_trials_are_listed_with_their_error(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "grade.json").unlink()
    (tdir / "redline.docx").unlink()
    (tdir / "metrics.json").write_text(json.dumps({"model": MODELS[1], "status": "errored", "end_reason": "provider_error",
                                                   "error": f"AuthenticationError: 401 {HOSTILE}"}))
    tree = parse(write_run_report(run_dir))
    summary = [c.text_content() for c in tree.xpath("//section[@id='summary']//div[contains(@class,'callout')]")]
    assert any("errored or not graded" in c and "redline-s3-t4-g01a" in c for c in summary)
    # the summary says why, as it does for gate failures: a reader should not have to open every trial
    assert any("errored or not graded" in c and f"AuthenticationError: 401 {HOSTILE}" in c for c in summary)
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[1]), 'redline-s3-t4-g01a', '1')}']")[0].text_content()
    assert "Trial errored" in trial and f"AuthenticationError: 401 {HOSTILE}" in trial and "produced no redline.docx" in trial


def test_ids_are_unique(run_dir, run_b, tmp_path):
    from collections import Counter

    from redlinebench.report import write_comparison

    for page in (write_run_report(run_dir), write_comparison([run_dir, run_b], tmp_path / "c.html")):
        ids = Counter(parse(page).xpath("//@id"))
        assert [i for i, n in ids.items() if n > 1] == []


def test_grade_files_with_wrong_types_everywhere_still_render(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[0]) / "redline-s2-t1-g02b" / "1"
    (tdir / "grade.json").write_text(json.dumps({
        "task_id": ["x"], "model": 7, "trial": "one", "scenario_id": {"a": 1}, "turn": None, "side": 3,
        "status": "weird", "judges": "not a list", "gate": "yes",
        "score": {"weighted": "0.5", "n_pass": "2", "n_total": None, "per_rubric": [
            "not a dict", {"rubric_id": None, "verdict": ["PASS"], "weight": "5", "votes": ["a"], "criteria": {"x": 1}},
            {"rubric_id": "r9", "verdict": "PASS", "weight": -2, "votes": {"j": "MAYBE"}, "justification": 5}]},
        "incomplete_judges": "j", "usage": [], "errors": "boom"}))
    (tdir / "metrics.json").write_text(json.dumps({"tokens_in": "many", "tool_calls": {"a": "b"}, "cost_usd": True}))
    (tdir / "transcript.jsonl").write_text('not json\n{"type": "tool", "result": [1, 2]}\n[1]\n{"type": "model", "message": 5}\n')
    tree = parse(write_run_report(run_dir))
    assert_safe(tree)
    assert len(tree.xpath("//section[@id='tasks']//tbody/tr")) == 13
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s2-t1-g02b', '1')}']")[0]
    assert "line 1 is not JSON" in trial.text_content()
    assert "r9" in trial.text_content()


def test_links_to_each_trials_files(run_dir, tmp_path):
    tree = parse(write_run_report(run_dir))
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), 'redline-s1-t1-g01a', '1')}']")[0]
    hrefs = trial.xpath(".//div[contains(@class,'files')]/a/@href")
    assert [h.rsplit("/", 1)[1] for h in hrefs] == ["redline.docx", "grade.json", "metrics.json", "transcript.jsonl",
                                                   "annotated_view.md"]
    assert all((run_dir / h).is_file() for h in hrefs)
    moved = parse(write_run_report(run_dir, tmp_path / "elsewhere" / "r.html"))
    far = moved.xpath("//div[contains(@class,'files')]/a/@href")[0]
    assert far.startswith("../") and ((tmp_path / "elsewhere") / far).resolve().is_file()


def test_unscored_run_still_shows_every_trial_and_redline(tmp_path, bench):
    from .runfixture import build_run

    run = build_run(tmp_path / "runs", bench=bench, summary=None, run_id="unscored")
    for g in run.glob("trials/**/grade.json"):
        g.unlink()
    tree = parse(write_run_report(run))
    assert_safe(tree)
    body = text(tree)
    assert "nothing is scored yet" in body
    assert [c.xpath(".//div[@class='big']")[0].text_content() for c in tree.xpath("//div[@class='card']")] == \
        ["— not scored"] * 3
    assert len(tree.xpath("//section[@id='tasks']//tbody/tr")) == 13
    assert "not graded" in body and "No rubric verdicts recorded for this trial." in body


def test_a_right_to_left_model_name_does_not_reorder_the_text_around_it(tmp_path, bench):
    """Where a model name runs on with other text (the failure lists, a task's scores, a trial's summary, the grid
    notes), it is isolated (<bdi>, or U+2068..U+2069): unisolated, an Arabic name pulls the ' · trial 1' or ': 4 of 12'
    after it into its right-to-left run and the line reads scrambled."""
    from .runfixture import PLAN, build_run

    model = "local/نموذج-عربي"
    run = build_run(tmp_path / "runs", bench=bench, plan={model: PLAN[MODELS[1]]})
    tree = parse(write_run_report(run))
    mixed = []
    for node in tree.iter():
        if not isinstance(node.tag, str) or node.tag == "bdi" or node.xpath("ancestor::*[local-name()='svg']"):
            continue
        own = node.text or ""
        if model in own and own.strip() != model and f"\u2068{model}\u2069" not in own:
            mixed.append((node.tag, node.get("class"), own[:80]))
        tail = node.tail or ""
        if model in tail and f"\u2068{model}\u2069" not in tail and node.getparent().text_content().strip() != model:
            mixed.append((node.getparent().tag, node.getparent().get("class"), node.tail[:80]))
    assert mixed == [], "\n".join(map(str, mixed))
    assert len(tree.xpath(f"//bdi[.='{model}']")) >= 3


def test_cards_count_errored_trials(run_dir):
    """The card of a model with an errored trial says so: 'trials' counts only scored ones, so without it the
    failure is visible only in the callout."""
    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "grade.json").unlink()
    (tdir / "metrics.json").write_text(json.dumps({"model": MODELS[1], "status": "errored", "error": "RateLimitError"}))
    tree = parse(write_run_report(run_dir))
    cards = {c.xpath(".//div[@class='model']")[0].text_content():
             dict(zip([d.text_content() for d in c.xpath(".//dt")], [d.text_content() for d in c.xpath(".//dd")]))
             for c in tree.xpath("//div[@class='card']")}
    assert cards[MODELS[1]]["errored"] == "1" and cards[MODELS[0]]["errored"] == "0"


def test_cards_show_the_share_of_input_read_from_the_prompt_cache(run_dir):
    """Issue 14.2: a model whose trials recorded cache reads says how much of its input they were; a model
    with none recorded shows no such line (not a made-up 0%)."""
    for path in (run_dir / "trials" / slug(MODELS[0])).rglob("metrics.json"):
        m = json.loads(path.read_text())
        m.update(tokens_in=2000, cache_read_tokens=1500)
        path.write_text(json.dumps(m))
    tree = parse(write_run_report(run_dir))
    cards = {c.xpath(".//div[@class='model']")[0].text_content():
             dict(zip([d.text_content() for d in c.xpath(".//dt")], [d.text_content() for d in c.xpath(".//dd")]))
             for c in tree.xpath("//div[@class='card']")}
    assert cards[MODELS[0]]["cached input"] == "75.0% of input"
    assert "cached input" not in cards[MODELS[1]]


def test_each_diagnostic_reads_in_one_format(run_dir):
    """Issue 26: the diagnostics mixed ``1``, ``7.540`` and ``79%``. A rate is a percentage with one decimal, a count a
    whole number (its mean over trials one decimal), row by row and in each trial's list."""
    import re

    path = run_dir / "metrics_summary.json"
    summary = json.loads(path.read_text())
    values = [({"redlines": 6.0, "edit_operations": 16.26, "surgicalness_score": 0.786},
               {"paragraph_precision": 1.0, "span_f1": 0.5, "model_touched_paragraphs": 7.54}),
              ({"redlines": 0, "edit_operations": 0, "surgicalness_score": 1},
               {"paragraph_precision": None, "span_f1": 0, "model_touched_paragraphs": 0})]
    for entry, (diag, golden) in zip(summary["leaderboard"], values):
        entry["diagnostics"], entry["golden_agreement"] = diag, golden
    path.write_text(json.dumps(summary))
    grade_path = next((run_dir / "trials" / slug(MODELS[0])).rglob("grade.json"))
    grade = json.loads(grade_path.read_text())
    grade["score"].update(median_insertion_chars=52.5, golden_agreement={"span_recall": 1, "golden_touched_paragraphs": 7.0})
    grade_path.write_text(json.dumps(grade))

    tree = parse(write_run_report(run_dir))
    table = tree.xpath("//section[@id='diagnostics']//table")[0]
    rows = {r.xpath("./td[1]")[0].text_content(): [c.text_content() for c in r.xpath("./td")[1:3]]
            for r in table.xpath("./tbody/tr")}
    assert rows["Redlines (clusters of touched paragraphs)"] == ["6.0", "0.0"]
    assert rows["Edit operations"] == ["16.3", "0.0"]
    assert rows["Surgicalness (inline share of edits)"] == ["78.6%", "100.0%"]
    assert rows["Golden agreement · paragraph precision"] == ["100.0%", "—"]
    assert rows["Golden agreement · span f1"] == ["50.0%", "0.0%"]
    assert rows["Golden agreement · model touched paragraphs"] == ["7.5", "0.0"]
    trial = tree.xpath(f"//details[@id='{slug_id('trial', slug(MODELS[0]), grade_path.parent.parent.name, grade_path.parent.name)}']")[0]
    items = dict(zip([d.text_content() for d in trial.xpath(".//dl[@class='kv']/dt")],
                     [d.text_content() for d in trial.xpath(".//dl[@class='kv']/dd")]))
    assert items["Median insertion (chars)"] == "53" and items["Redlines (clusters of touched paragraphs)"] == "3"
    assert items["Surgicalness (inline share of edits)"] == "80.0%"
    assert items["Golden agreement · span recall"] == "100.0%" and items["Golden agreement · golden touched paragraphs"] == "7"
    # and every rate on the page, the judges' agreement included, has the one form
    for cell in tree.xpath("//section[@id='diagnostics']//td[contains(text(), '%')]"):
        assert re.fullmatch(r"\d+\.\d%", cell.text_content()), cell.text_content()
