"""The one console script, ``canfield-race``, and its subcommands.

Each subcommand is a module with a one-line ``HELP`` and two functions,
``add_arguments(parser)`` and ``run(args) -> int``, registered by the
package it belongs to in the ``canfield_race.commands`` entry-point group
(``name = "package.commands.module"`` in ``pyproject.toml``). This file
only wires them together, so ``canfield-race --help`` lists them all;
a module whose package is not installed is left out. The command modules
keep their heavy imports inside ``run``, so ``canfield-race deal`` never
pays for the web stack.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Protocol, cast

__all__ = ["GROUP", "Command", "load_commands", "build_parser", "main"]

#: the entry-point group every side registers its subcommands in
GROUP = "canfield_race.commands"


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
    parser = argparse.ArgumentParser(
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
    return int(commands[args.command].run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
