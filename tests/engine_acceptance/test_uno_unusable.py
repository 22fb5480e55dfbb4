"""A LibreOffice whose UNO bridge cannot load a commented document (Debian's 7.4 ``-nogui`` build:
"Binary URP bridge disposed") failed 18 oracle tests; they skip with the reason, except in CI
(REDLINEBENCH_REQUIRE_EXTERNAL=1), where a LibreOffice that works must be installed."""

from __future__ import annotations

import json
import sys

import pytest

from tests.engine_acceptance import conftest

BROKEN = '''import json, sys
job = json.load(open(sys.argv[1]))
json.dump({f["path"]: {"loaded": False, "error": "DisposedException: Binary URP bridge disposed during call"}
           for f in job["files"]}, open(sys.argv[2], "w"))
'''


@pytest.fixture
def broken_oracle(tmp_path, monkeypatch):
    script = tmp_path / "oracle.py"
    script.write_text(BROKEN)
    monkeypatch.setattr(conftest, "ORACLE_SCRIPT", script)
    doc = tmp_path / "a.docx"
    doc.write_bytes(b"x")
    return conftest.Oracle("soffice", sys.executable, tmp_path), doc


def test_a_broken_uno_bridge_skips_with_the_reason(broken_oracle, monkeypatch):
    monkeypatch.delenv("REDLINEBENCH_REQUIRE_EXTERNAL", raising=False)
    oracle, doc = broken_oracle
    with pytest.raises(pytest.skip.Exception, match="UNO bridge cannot load documents here.*URP bridge disposed"):
        oracle.run([doc])


def test_in_ci_a_broken_uno_bridge_fails(broken_oracle, monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_REQUIRE_EXTERNAL", "1")
    oracle, doc = broken_oracle
    with pytest.raises(pytest.fail.Exception, match="CI must install a LibreOffice whose UNO load works"):
        oracle.run([doc])


def test_a_documents_own_load_error_is_still_reported(tmp_path, monkeypatch):
    script = tmp_path / "oracle.py"
    script.write_text(BROKEN.replace("DisposedException: Binary URP bridge disposed during call",
                                     "LibreOffice could not load the file"))
    monkeypatch.setattr(conftest, "ORACLE_SCRIPT", script)
    doc = tmp_path / "a.docx"
    doc.write_bytes(b"x")
    result = conftest.Oracle("soffice", sys.executable, tmp_path).run([doc])
    assert json.dumps(result[doc]) and result[doc]["error"] == "LibreOffice could not load the file"
