"""`redlinebench doc ...`: the exact CLI contract of issue 2 item 10, on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from tests.fixtures.audit import new_audit_errors
from tests.fixtures.corpus import COMMENTS, CORPUS, PRIOR_CHANGES, THEM, US
from tests.fixtures.hostile import HOSTILE

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["doc", *map(str, args)], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def contract(tmp_path) -> Path:
    path = tmp_path / "contract.docx"
    path.write_bytes(PRIOR_CHANGES.data())
    return path


def _read_json(path: Path) -> dict:
    code, out, err = run("read", path, "--json")
    assert code == 0, err
    return json.loads(out)


def test_read_view_and_json_shape(contract):
    code, out, _ = run("read", contract)
    assert code == 0 and "[p-001]" in out and "sixty (60)" in out and THEM in out
    data = _read_json(contract)
    assert set(data) == {"paragraphs", "comments", "revisions"}
    p = data["paragraphs"][0]
    assert set(p) == {"id", "number", "style", "text", "in_table", "flags"}
    assert p["text"] == "Fees are payable within sixty (60) days of invoice." and p["in_table"] is False
    assert p["number"] and "has_revisions" in p["flags"]
    r = data["revisions"][0]
    assert set(r) == {"id", "type", "author", "paragraph_id", "text"} and r["author"] == THEM
    with_comments = Path(contract.parent / "c.docx")
    with_comments.write_bytes(COMMENTS.data())
    comments = _read_json(with_comments)["comments"]
    assert set(comments[0]) == {"id", "author", "parent", "paragraph_ids", "text", "resolved"}
    assert comments[0]["resolved"] is True and comments[1]["parent"] == comments[0]["id"]


def test_read_a_range_as_the_read_document_tool_does(tmp_path):
    """`doc read` is the container agent's read_document: the same ranges, the same view, the same errors."""
    from redlinebench.docx import RedlineDocument
    from redlinebench.tools import ToolSession
    from redlinebench.tools._functions import read_document
    from tests.docx.viewgrammar import shipped_redlines

    path = tmp_path / "contract.docx"
    path.write_bytes(shipped_redlines()[0].read_bytes())
    for args, kwargs in ((["--clause", "3"], {"clause": "3"}),
                         (["--start-id", "p-5", "--end-id", "p-006"], {"start_id": "p-5", "end_id": "p-006"}),
                         (["--end-id", "p-004"], {"end_id": "p-004"})):
        code, out, err = run("read", path, *args, "--author", "Agent Counsel")
        assert code == 0, err
        session = ToolSession(RedlineDocument.open(path, name=str(path)), "Agent Counsel")
        assert out == read_document(session, **kwargs)["view"] + "\n"
    code, out, _ = run("read", path, "--clause", "3")
    assert code == 0 and "(clause 3)" in out.splitlines()[0] and "(you)" not in out
    code, _, err = run("read", path, "--clause", "99")
    assert code == 1 and "invalid_range: no clause numbered '99'" in err and str(path) in err
    code, _, err = run("read", path, "--start-id", "p-9999")
    assert code == 1 and "the ids run p-001.." in err
    code, _, err = run("read", path, "--json", "--clause", "3")
    assert code == 2 and "--json prints the whole document" in err


def test_view_annotated(contract):
    code, out, _ = run("view", contract)   # the annotated view is the default: no flag needed
    assert code == 0 and "sixty (60)" in out and "thirty (30)" in out
    assert out.startswith("# Annotated redline (grammar: docs/VIEWS.md).") and "~~" in out and "++" in out
    assert run("view", contract, "--annotated") == (code, out, "")   # the old flag still works, same output


def test_text_modes(contract):
    assert run("text", contract, "--accepted")[1].rstrip("\n").split("\n") == PRIOR_CHANGES.expect.accepted
    assert run("text", contract, "--original")[1].rstrip("\n").split("\n") == PRIOR_CHANGES.expect.original
    code, out, _ = run("text", contract)
    assert code == 0 and out.startswith("Fees are payable within sixty (60) days")


def _edits(path: Path, contract: Path, edits: list[dict]) -> Path:
    ids = [p["id"] for p in _read_json(contract)["paragraphs"]]
    for edit in edits:
        edit["anchor"]["paragraph_id"] = ids[edit["anchor"]["paragraph_id"]]
    path.write_text(json.dumps(edits))
    return path


def test_edit_writes_output_and_prints_results(contract, tmp_path):
    edits = _edits(tmp_path / "edits.json", contract, [
        {"op": "replace", "anchor": {"paragraph_id": 0, "text": "sixty (60)"}, "new_text": "forty-five (45)",
         "comment": "Compromise."},
        {"op": "delete", "anchor": {"paragraph_id": 1, "text": "promptly "}, "comment": "Too vague."},
    ])
    out = tmp_path / "out.docx"
    before = contract.read_bytes()
    code, stdout, _ = run("edit", contract, edits, "--author", US, "-o", out, "--date", "2026-02-01T00:00:00Z")
    assert code == 0
    results = json.loads(stdout)["results"]
    assert [r["status"] for r in results] == ["ok", "ok"]
    assert contract.read_bytes() == before  # -o leaves the input alone
    accepted = run("text", out, "--accepted")[1].split("\n")
    assert accepted[0] == "Fees are payable within forty-five (45) days of invoice."
    assert accepted[1] == "The Vendor shall notify the Customer."
    assert run("text", out, "--original")[1] == run("text", contract, "--original")[1]
    assert run("validate", out)[0] == 0
    assert new_audit_errors(before, out.read_bytes(), tmp_path) == []


def test_edit_exit_1_when_an_edit_fails_but_successes_are_saved(contract, tmp_path):
    edits = _edits(tmp_path / "edits.json", contract, [
        {"op": "replace", "anchor": {"paragraph_id": 0, "text": "no such text"}, "new_text": "x", "comment": "c"},
        {"op": "replace", "anchor": {"paragraph_id": 0, "text": "invoice"}, "new_text": "receipt", "comment": "c"},
    ])
    out = tmp_path / "out.docx"
    code, stdout, _ = run("edit", contract, edits, "--author", US, "-o", out)
    assert code == 1
    assert [r["status"] for r in json.loads(stdout)["results"]] == ["anchor_failed", "ok"]
    assert "receipt" in run("text", out, "--accepted")[1]


def test_edit_all_failed_writes_nothing(contract, tmp_path):
    edits = _edits(tmp_path / "edits.json", contract, [
        {"op": "delete", "anchor": {"paragraph_id": 0, "text": "absent words"}, "comment": "c"}])
    out = tmp_path / "out.docx"
    code, _, _ = run("edit", contract, edits, "--author", US, "-o", out)
    assert code == 1 and not out.exists()


def test_edit_in_place(contract, tmp_path):
    edits = _edits(tmp_path / "edits.json", contract, [
        {"op": "replace", "anchor": {"paragraph_id": 0, "text": "invoice"}, "new_text": "receipt", "comment": "c"}])
    code, _, _ = run("edit", contract, edits, "--author", US)
    assert code == 0 and "receipt" in run("text", contract)[1]
    assert not [p for p in contract.parent.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]


@pytest.mark.parametrize("content,problem", [
    ("{not json", "not valid JSON"),
    ('{"op": "replace"}', "expected a JSON list"),
    ('[{"op": "explode", "anchor": {"paragraph_id": "p-001", "text": "x"}, "comment": "c"}]', "op"),
    ('[{"op": "replace", "anchor": {"paragraph_id": "p-001"}, "new_text": "x", "comment": "c"}]', "anchor.text"),
    ('[{"op": "replace", "anchor": {"paragraph_id": 7, "text": "x"}, "new_text": "x", "comment": "c"}]',
     "paragraph_id"),
])
def test_bad_edits_file_is_one_line_and_writes_nothing(contract, tmp_path, content, problem):
    edits = tmp_path / "bad.json"
    edits.write_text(content)
    out = tmp_path / "out.docx"
    code, stdout, stderr = run("edit", contract, edits, "--author", US, "-o", out)
    assert code == 2 and not out.exists() and stdout == ""
    assert stderr.count("\n") == 1 and str(edits) in stderr and problem in stderr, stderr


def test_comment_and_reply(tmp_path):
    path = tmp_path / "c.docx"
    path.write_bytes(COMMENTS.data())
    data = _read_json(path)
    root = data["comments"][0]["id"]
    pid = data["paragraphs"][1]["id"]
    code, out, err = run("comment", path, "--paragraph-id", pid, "--text", "New thread.", "--author", US)
    assert code == 0, err
    new_id = json.loads(out)["comment_id"]
    code, out, err = run("comment", path, "--reply-to", root, "--text", "A reply.", "--author", US,
                         "-o", tmp_path / "r.docx")
    assert code == 0, err
    comments = {c["id"]: c for c in _read_json(tmp_path / "r.docx")["comments"]}
    assert comments[new_id]["paragraph_ids"] == [pid] and comments[new_id]["author"] == US
    reply = next(c for c in comments.values() if c["text"] == "A reply.")
    assert reply["parent"] == root
    code, _, err = run("comment", path, "--paragraph-id", "p-999", "--text", "x", "--author", US)
    assert code != 0 and err.count("\n") == 1 and str(path) in err


def test_reserve(tmp_path):
    path = tmp_path / "clauses.docx"
    path.write_bytes(CORPUS["clauses"].data())
    ids = {p["text"]: p["id"] for p in _read_json(path)["paragraphs"]}
    code, _, err = run("reserve", path, "--start", ids["Email support within one day."],
                       "--end", ids["Phone support within four hours."], "--comment", "Not needed.",
                       "--author", US, "-o", tmp_path / "out.docx")
    assert code == 0, err
    accepted = run("text", tmp_path / "out.docx", "--accepted")[1]
    assert "Reserved." in accepted and "Email support" not in accepted


def test_accept_and_reject_filters(contract, tmp_path):
    code, out, _ = run("accept", contract, "--author", "Second Reviewer", "-o", tmp_path / "a.docx")
    assert code == 0 and json.loads(out)["accepted"] >= 1
    remaining = {r["author"] for r in _read_json(tmp_path / "a.docx")["revisions"]}
    assert remaining == {THEM}
    code, _, _ = run("reject", contract, "-o", tmp_path / "r.docx")
    assert code == 0
    assert run("text", tmp_path / "r.docx")[1] == run("text", contract, "--original")[1]
    first = _read_json(contract)["revisions"][0]["id"]
    code, out, _ = run("accept", contract, "--revision", first, "-o", tmp_path / "one.docx")
    assert code == 0 and json.loads(out)["accepted"] == 1
    assert len(_read_json(tmp_path / "one.docx")["revisions"]) == len(_read_json(contract)["revisions"]) - 1
    code, _, err = run("accept", contract, "--revision", "rev-9999", "-o", tmp_path / "none.docx")
    assert code == 1 and "rev-9999" in err and not (tmp_path / "none.docx").exists()
    code, _, err = run("accept", contract)
    assert code == 2 and "--output" in err


def test_validate(contract, tmp_path):
    code, out, _ = run("validate", contract)
    assert code == 0 and "valid" in out
    code, out, _ = run("validate", contract, "--json")
    assert code == 0 and json.loads(out)["valid"] is True
    import io
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(contract.read_bytes()))
    broken = tmp_path / "broken.docx"
    with zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "word/document.xml":
                blob = blob.replace(b"<w:delText>thirty (30)</w:delText>", b"<w:t>thirty (30)</w:t>")
            dst.writestr(info, blob)
    code, out, _ = run("validate", broken)
    assert code == 1 and "text-inside-del" in out and "INVALID" in out


@pytest.mark.parametrize("name", [n for n in HOSTILE if n not in ("zip_bomb", "huge_paragraph", "many_entries")])
def test_hostile_files_one_line_errors(name, tmp_path):
    path = tmp_path / f"{name}.docx"
    path.write_bytes(HOSTILE[name][0]())
    for args in (("read", path), ("text", path), ("view", path, "--annotated")):
        code, stdout, stderr = run(*args)
        assert code not in (0, 3), (args, stderr)
        assert stderr.startswith("error: ") and stderr.count("\n") == 1 and str(path) in stderr, stderr
        assert "Traceback" not in stderr and stdout == ""
    code, _, _ = run("validate", path)
    assert code == 1
    edits = tmp_path / "e.json"
    edits.write_text("[]")
    out = tmp_path / "out.docx"
    code, _, stderr = run("edit", path, edits, "--author", US, "-o", out)
    assert code != 0 and not out.exists()


def test_missing_file_and_unwritable_output(contract, tmp_path):
    code, _, err = run("read", tmp_path / "nope.docx")
    assert code == 2 and "does not exist" in err and err.count("\n") == 1  # a missing file: a usage error
    code, _, err = run("reject", contract, "-o", tmp_path / "no" / "such" / "dir" / "out.docx")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err


def test_subprocess_has_no_traceback(tmp_path):
    path = tmp_path / "bomb.docx"
    path.write_bytes(HOSTILE["zip_bomb"][0]())
    proc = subprocess.run([sys.executable, "-m", "redlinebench", "doc", "read", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {path}") and "Traceback" not in proc.stderr


@pytest.mark.libreoffice
def test_validate_libreoffice_document_warns_but_passes(soffice, tmp_path):
    from tests.fixtures.libreoffice import contract_fodt, convert_to_docx

    path = convert_to_docx(soffice, contract_fodt(), tmp_path, "lo")
    code, out, _ = run("validate", path)
    assert code == 0 and "warning:" in out and "revision-id-duplicate" in out and "(0 errors, 1 warnings)" in out
    code, out, _ = run("read", path, "--json")
    assert code == 0 and len(json.loads(out)["paragraphs"]) == 16


def test_edit_help_shows_a_usable_edit(contract, tmp_path):
    # a user without the SPEC learns the edit format from --help: its example must apply as shown
    code, out, _ = run("edit", "--help")
    assert code == 0 and "insert_after" in out and "comment is required" in out
    lines = out.split("Each edit")[1].split("\n\n")[0].splitlines()[1:]  # the example, up to the blank line
    example = json.loads(" ".join(line.strip() for line in lines))
    para = next(p for p in _read_json(contract)["paragraphs"] if len(p["text"].split()) > 2)
    example["anchor"] = {"paragraph_id": para["id"], "text": para["text"].split()[1]}
    edits = tmp_path / "edits.json"
    edits.write_text(json.dumps([example]), encoding="utf-8")
    code, out, err = run("edit", contract, edits, "--author", US, "-o", tmp_path / "out.docx")
    assert code == 0, out + err
    assert json.loads(out)["results"][0]["status"] == "ok"


@pytest.mark.parametrize("author", ["", "   ", "a\x01b"])
def test_a_bad_author_is_an_option_error_naming_author(tmp_path, author):
    from tests.docx.util import docx, p

    f = tmp_path / "a.docx"
    f.write_bytes(docx(p("Fees.")))
    edits = tmp_path / "e.json"
    edits.write_text("[]")
    r = CliRunner().invoke(main, ["doc", "edit", str(f), str(edits), "--author", author])
    assert r.exit_code == 2 and "Invalid value for '--author'" in r.output and "internal error" not in r.output
