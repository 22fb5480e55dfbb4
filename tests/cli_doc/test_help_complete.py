"""Every command of the CLI documents itself and each of its options (a user's only manual)."""

from __future__ import annotations

import click

from redlinebench.cli import main


def _commands(cmd: click.Command, path: tuple[str, ...] = ()):
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, cmd


def test_every_command_and_option_has_help():
    missing = []
    for path, cmd in _commands(main):
        if not (cmd.help or "").strip():
            missing.append(" ".join(path))
        missing += [f"{' '.join(path)} {p.opts[0]}" for p in cmd.params
                    if isinstance(p, click.Option) and p.name != "help" and not (p.help or "").strip()]
    assert len(list(_commands(main))) > 20  # doc, tasks, dataset, run, score, ... are all registered
    assert missing == []


def test_version_needs_no_installed_distribution(monkeypatch):
    """`python -m redlinebench --version` from a checkout that was never pip-installed."""
    import importlib.metadata

    from click.testing import CliRunner

    from redlinebench import __version__
    from redlinebench.cli import main

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"redlinebench, version {__version__}"


def test_the_judges_endpoint_option_has_one_name_everywhere():
    """run, score, judge check and verify all call the judges' endpoint --judge-api-base."""
    from click.testing import CliRunner

    from redlinebench.cli import main

    for args in (["run"], ["score"], ["judge", "check"], ["verify"]):
        out = CliRunner().invoke(main, [*args, "--help"], terminal_width=200).output
        assert "--judge-api-base" in out, args
