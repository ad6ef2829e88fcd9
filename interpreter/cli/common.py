"""What every command shares: the exit statuses, `CliError`, the files a command reads and
writes, and its output (the console, progress bars, one-line messages)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 70, 130


class CliError(Exception):
    """A problem to report in one line, with its exit status."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------- files


def root_folder(args: argparse.Namespace) -> str | None:
    """--root DIR, checked to be a folder (None when not given)."""
    root = getattr(args, "root", None)
    if root is None:
        return None
    if not os.path.isdir(root):
        raise CliError(f"--root {root}: no such folder")
    return root


def check_file(path: str | None) -> str:
    if not path:
        raise CliError("a spec FILE is needed")
    if not os.path.isfile(path):
        if os.path.exists(path):
            raise CliError(f"not a spec file: {path} (a folder, a device or a pipe)")
        raise CliError(f"no such file: {path}")
    return path


def check_log(path: str) -> None:
    """A match log named on the command line is a file."""
    if not os.path.isfile(path):
        if os.path.exists(path):
            raise CliError(f"not a log file: {path} (a folder, a device or a pipe)")
        raise CliError(f"no such log: {path}")


def check_output(path: str | None, flag: str) -> None:
    """An output file named on the command line can be written: checked before any work."""
    if not path:
        return
    if os.path.isdir(path):
        raise CliError(f"{flag} {path}: that is a folder, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"{flag} {path}: no such folder {os.path.dirname(path) or folder}")
    if os.path.exists(path) and not os.path.isfile(path):
        return  # /dev/null and friends
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise CliError(f"{flag} {path}: permission denied")


def load_game_file(path: str, players: int | None, options: dict[str, Any], root: str | None = None) -> Any:
    from ..game import load_game

    return load_game(check_file(path), players=players, options=options, root=root)


def cannot_write(path: str, exc: OSError) -> CliError:
    return CliError(f"cannot write {path}: {exc.strerror or exc}", EXIT_INVALID)


def write_file(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise cannot_write(path, exc) from None


# ---------------------------------------------------------------------- output


def say(err: TextIO, line: str) -> None:
    """One line on ``err``, flushed; a stream that is gone is left alone."""
    try:
        print(line, file=err)
        err.flush()
    except (OSError, ValueError):
        pass


def first_line(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose message cannot be made
        return "?"
    lines = text.splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= 300 else first[:297] + "..."


class _PlainLines:
    """A text stream that drops trailing spaces from each line (for files and pipes)."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.pending = ""

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            self.stream.write(line.rstrip() + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write(self.pending)
            self.pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def _is_terminal(stream: TextIO) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


def make_console(stream: TextIO, no_color: bool = False) -> Any:
    """A rich console on ``stream``: plain text, 100 columns wide, when it is not a terminal."""
    from rich.console import Console

    if _is_terminal(stream):
        return Console(file=stream, no_color=no_color, highlight=False, emoji=False)
    return Console(file=_PlainLines(stream), no_color=True, highlight=False, emoji=False, width=100,  # type: ignore[arg-type]
                   force_terminal=False, soft_wrap=True)


@contextmanager
def progress_bar(err: TextIO, no_color: bool, description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on ``err`` (plain, 100 columns wide, when it is not a terminal): yields the
    function that says how many of ``total`` are done."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    tty = _is_terminal(err)
    console = Console(file=err, no_color=no_color or not tty, force_terminal=None if tty else False,
                      width=None if tty else 100)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def progress_on_a_terminal(args: argparse.Namespace, err: TextIO, description: str,
                           total: int) -> Iterator[Callable[[int], None] | None]:
    """A progress bar when the error stream is a terminal and --no-progress is not given, else None."""
    if args.no_progress or not _is_terminal(err):
        yield None
        return
    with progress_bar(err, args.no_color, description, total) as update:
        yield update
