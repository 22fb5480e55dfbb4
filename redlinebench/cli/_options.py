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
