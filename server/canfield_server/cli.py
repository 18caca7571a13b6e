"""The one console script, ``canfield-race``, and its subcommands.

Each subcommand lives in its own module with two functions,
``add_arguments(parser)`` and ``run(args) -> int``; this file only wires
them together, explicitly, so ``canfield-race --help`` lists them all.
Modules are imported lazily so ``canfield-race deal`` never pays for the
web stack.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("canfield_server.commands.serve", "run the race server"),
    "deal": ("canfield_server.commands.deal", "print the deal for a deal code"),
    "play": ("canfield_server.commands.play", "replay moves on a deal and print the board"),
    "solve": ("canfield_server.commands.solve", "decide whether a deal can be won"),
    "bench-engine": ("canfield_server.commands.bench_engine", "measure the rules engine"),
    "bot": ("canfield_client.commands.bot", "join a room and race as a bot"),
    "bench": ("canfield_client.commands.bench", "load-test a server and print figures"),
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, object]]:
    parser = argparse.ArgumentParser(
        prog="canfield-race", description="Real-time multiplayer Canfield solitaire races."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules: dict[str, object] = {}
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        modules[name] = module
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)  # type: ignore[attr-defined]
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    return int(modules[args.command].run(args) or 0)  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
