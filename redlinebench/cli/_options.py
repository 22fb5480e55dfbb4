"""Option types shared by every command, so one option means and accepts the same everywhere."""

from __future__ import annotations

from pathlib import Path

import click

#: A side of the negotiation: A = vendor, B = customer; either case, given back upper-case.
SIDE = click.Choice(["A", "B"], case_sensitive=False)
#: Scenario and turn numbers as task names spell them (``redline-s1-t2-...``); the public set has
#: scenarios 1-3 and turns 1-4, other trees may have more.
SCENARIO = click.IntRange(1, 99)
TURN = click.IntRange(1, 99)
#: A run folder, an existing one (a missing folder is a usage error, exit 2).
RUN_DIR = click.Path(path_type=Path, file_okay=False, exists=True)
#: A file to read, an existing one.
IN_FILE = click.Path(path_type=Path, dir_okay=False, exists=True)


def _joined_ids(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> str | None:
    """Every ``--tasks`` / ``--task`` given, as one comma list (None when none was)."""
    return ",".join(values) if values else None


def tasks_option(what: str) -> "click.decorators.FC":
    """``--tasks IDS`` and ``--task ID`` as one option everywhere (``run``, ``import outputs``,
    ``export harbor``): comma-separated, repeatable, either spelling; given to the command as one
    comma list, or None."""
    return click.option("--tasks", "--task", "tasks", metavar="IDS", multiple=True, callback=_joined_ids,
                        help=f"Comma-separated task ids to {what} (--task ID also works, repeatable) "
                             "[default: all].")
