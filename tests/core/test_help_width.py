"""Every command's ``--help`` reads in an 80-column terminal: no line wider than the terminal (a
``\\b`` block is printed as written, so a long line there wraps mid-word on screen)."""

from __future__ import annotations

import click
from click.testing import CliRunner

from redlinebench.cli import main


def _commands(cmd: click.Command, path: tuple[str, ...] = ()):
    yield path, cmd
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            yield from _commands(cmd.get_command(ctx, name), path + (name,))


def test_every_help_fits_80_columns():
    runner = CliRunner()
    too_wide = {}
    for path, _cmd in _commands(main):
        res = runner.invoke(main, [*path, "--help"], terminal_width=80)
        assert res.exit_code == 0, (path, res.output)
        long = [line for line in res.output.splitlines() if len(line) > 80]
        if long:
            too_wide[" ".join(path) or "redlinebench"] = long
    assert len(list(_commands(main))) > 30 and not too_wide, too_wide
