"""Measuring servers: the benchmarks and the child processes they (and the tests) start.

No part of the racing client: it drives ``canfield_client``'s ``RaceClient``,
bot strategy and board against real ``canfield-race`` processes it starts by
their command line (``processes.py``), never by importing the server. Its
subcommands (``bench``, ``bench-quick``, ``bench-identities``,
``bench-integrity``) live in ``canfield_bench.commands``.
"""
