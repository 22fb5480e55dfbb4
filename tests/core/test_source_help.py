"""Every ``--source`` option documents the source grammar the resolver actually parses."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from redlinebench import config
from redlinebench.cli import main
from redlinebench.errors import HubError
from redlinebench.tasks import _source


def _source_options(group: click.Group, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _source_options(cmd, prefix + (name,))
            continue
        for param in cmd.params:
            if "--source" in getattr(param, "opts", ()):
                yield prefix + (name,), param


def test_every_source_option_spells_the_hub_revision_with_an_at():
    found = list(_source_options(main))
    assert len(found) >= 8  # run, demo, score, judge check, tasks *, dataset export, harbor, push ...
    for path, param in found:
        assert param.metavar == "DIR|hub|hub@REV|embedded", path
        assert "hub[" not in (param.help or "") and "hub:" not in (param.help or ""), path
    run_help = CliRunner().invoke(main, ["run", "--help"]).output
    assert "hub@REV" in run_help and "hub[:" not in run_help


def test_the_resolver_reads_hub_at_revision(monkeypatch, tmp_path):
    asked = []

    def fake_download(revision=None, *a, **k):
        asked.append(revision)
        raise HubError("offline in tests")

    monkeypatch.setattr(_source, "download_hub_snapshot", fake_download)
    monkeypatch.chdir(tmp_path)
    for text, revision in (("hub@abc123", "abc123"), ("hub", config.HUB_DATASET_REVISION)):
        with pytest.raises(HubError):
            _source.resolve_source(text)
        assert asked[-1] == revision
    # the old colon spelling is not a Hub source: it is taken as a (missing) directory
    with pytest.raises(Exception) as err:
        _source.resolve_source("hub:abc123")
    assert not isinstance(err.value, HubError) and "hub:abc123" in str(err.value)
