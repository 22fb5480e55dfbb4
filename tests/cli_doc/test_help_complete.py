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
