"""The one console script, ``canfield-race``, and its subcommands.

Each subcommand is a module with a one-line ``HELP`` and two functions,
``add_arguments(parser)`` and ``run(args) -> int``, registered by the
package it belongs to in the ``canfield_race.commands`` entry-point group
(``name = "package.commands.module"`` in ``pyproject.toml``). This file
only wires them together, so ``canfield-race --help`` lists them all;
a module whose package is not installed is left out. The command modules
keep their heavy imports inside ``run``, so ``canfield-race deal`` never
pays for the web stack.

Output into a closed pipe (``canfield-race solve CODE --json | head -c 100``)
ends the command quietly with the status a shell gives a process SIGPIPE
ended (141), and a usage error quotes at most ``USAGE_LIMIT`` characters.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import NoReturn, Protocol, cast

__all__ = ["GROUP", "Command", "load_commands", "build_parser", "main"]

#: the entry-point group every side registers its subcommands in
GROUP = "canfield_race.commands"
#: the exit status after output into a closed pipe: 128 + SIGPIPE, as a shell reports it
BROKEN_PIPE = 141
#: the longest usage error printed (argparse quotes the bad argument whole)
USAGE_LIMIT = 300


class _Parser(argparse.ArgumentParser):
    """``argparse`` whose usage errors quote a bad argument only in part."""

    def error(self, message: str) -> NoReturn:
        if len(message) > USAGE_LIMIT:
            message = f"{message[:USAGE_LIMIT]}... ({len(message)} characters)"
        super().error(message)


class Command(Protocol):
    """What a subcommand module provides."""

    HELP: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _missing_package(exc: ModuleNotFoundError, module_name: str) -> bool:
    """Whether ``exc`` says the command's own module (or its package) is absent."""
    parts = module_name.split(".")
    return exc.name in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def load_commands() -> dict[str, Command]:
    """Subcommand name -> its module, for every installed registration."""
    commands: dict[str, Command] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        try:
            module = point.load()
        except ModuleNotFoundError as exc:
            if not _missing_package(exc, point.module):
                raise
            continue
        if not isinstance(module, ModuleType):
            raise TypeError(f"{GROUP} entry point {point.name!r} must name a module")
        commands[point.name] = cast(Command, module)
    return commands


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    parser = _Parser(
        prog="canfield-race", description="Real-time multiplayer Canfield solitaire races."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = load_commands()
    for name, command in commands.items():
        command_parser = sub.add_parser(name, help=command.HELP, description=command.HELP)
        command.add_arguments(command_parser)
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    parser, commands = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        status = int(commands[args.command].run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE
    return status


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush of
    what is still buffered does not fail again (and print a traceback)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass  # no real stdout (a test's capture): nothing left to flush


if __name__ == "__main__":
    sys.exit(main())
