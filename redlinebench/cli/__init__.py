"""``redlinebench``: one CLI, thin. Each command family lives in its own module and only
wires options to library calls; heavy imports (litellm, datasets) happen inside commands so
``redlinebench --help`` stays fast.
"""

from __future__ import annotations

import inspect
import re
import sys
from importlib import import_module
from typing import Any

import click
from .._termtable import echo

from .. import __version__
from ..errors import RedlineBenchError

# Command-family modules, each exposing ``register(group: click.Group) -> None``.
_FAMILIES = (
    "doc",           # redlinebench doc ...            (engine, issue 2)
    "tasks",         # redlinebench tasks|dataset ...  (task model + HF dataset, issue 3)
    "data",          # redlinebench data ...           (synthetic benchmark, issue 4)
    "scoring",       # redlinebench score|summarize|judge ... (issue 5)
    "run",           # redlinebench run|demo ...       (issue 6)
    "report",        # redlinebench report|compare ... (issue 8)
    "runs",          # redlinebench runs [DIR]         (issue 26)
    "arena",         # redlinebench arena ...          (issue 32)
    "integrations",  # redlinebench export|import|push|verify ... (issue 7)
    "reproduce",     # redlinebench reproduce (redlinebench-reproduce)    (issue 30)
)


def _usage(exc: click.UsageError) -> None:
    """A usage error as one line (the usage block and its hint say nothing the message does not)."""
    where = exc.ctx.command_path if exc.ctx is not None else "redlinebench"
    echo(f"error: {exc.format_message()} (see `{where} --help`)", err=True)
    sys.exit(2)


_HYPHEN_HELD = "\u2011"  # a non-breaking hyphen while click wraps: its wrapper breaks after "-"


class _Formatter(click.HelpFormatter):
    """click's help formatter, breaking lines at spaces only (its wrapper also breaks after a
    hyphen: ``openai/gpt-`` over ``5.4-mini``, ``re-`` over ``running``)."""

    def _held(self, write: Any, *args: Any, **kwargs: Any) -> None:
        start = len(self.buffer)
        write(*args, **kwargs)
        self.buffer[start:] = [part.replace(_HYPHEN_HELD, "-") for part in self.buffer[start:]]

    def write_text(self, text: str) -> None:
        self._held(super().write_text, text.replace("-", _HYPHEN_HELD))

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        rows = [(a, b.replace("-", _HYPHEN_HELD)) for a, b in rows]
        self._held(super().write_dl, rows, col_max, col_spacing)


class _Context(click.Context):
    formatter_class = _Formatter


class _Main(click.Group):
    """Turns user errors into one line on stderr and a non-zero exit; bugs keep tracebacks.

    Exit codes, the same for every command: 2 when what was typed is wrong (an unknown option, a
    bad value, a path that does not exist, options that do not go together); 1 when the command
    ran and failed (a folder that holds no run or broken files, a provider or judge that failed,
    judging left incomplete, invalid tasks). 130 on Ctrl-C.
    """

    context_class = _Context

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[override]
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            _usage(exc)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            _usage(exc)
        except RedlineBenchError as exc:
            echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except OSError as exc:
            # A path the user gave cannot be written or read (a file where a folder should be, no
            # permission, a full disk): their environment, not our bug, so one line naming it.
            if not exc.filename:
                raise
            where = exc.filename if not exc.filename2 else f"{exc.filename} -> {exc.filename2}"
            echo(f"error: {where}: {exc.strerror or exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="redlinebench")  # also from a checkout that is not installed
def main() -> None:
    """RedlineBench: evaluate LLM agents on lawyer-grade contract redlining.

    \b
    Quick start (no API key, no network):
      redlinebench demo
    Run a model:
      redlinebench run --model openai/gpt-5.4-mini --judges panel
    """


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s|$)")


def first_sentence(text: str) -> str:
    """The first sentence of a command's help, whole (click's default cuts it at the column width
    with "...", mid-sentence); the first paragraph when it has no sentence end."""
    paragraph = " ".join(inspect.cleandoc(text).split("\n\n")[0].split())
    end = _SENTENCE_END.search(paragraph)
    return paragraph[:end.end()] if end else paragraph


def _fit_help(group: click.Group) -> None:
    """Every command's ``--help`` wrapped at spaces only, and its one-line summary in its group's
    list a whole first sentence (the formatter wraps it under its column), at every level."""
    for command in group.commands.values():
        command.context_class = _Context
        if command.short_help is None and command.help:
            command.short_help = first_sentence(command.help)
        if isinstance(command, click.Group):
            _fit_help(command)


for _name in _FAMILIES:
    try:
        _mod = import_module(f".{_name}", __name__)
    except ModuleNotFoundError as _exc:  # a family not written yet must not break the others
        if _exc.name != f"{__name__}.{_name}":
            raise
        continue
    _mod.register(main)
_fit_help(main)
