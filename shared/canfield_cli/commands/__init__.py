"""The subcommands that need only the rules engine: deal, play, solve, analyse, bench-engine."""
