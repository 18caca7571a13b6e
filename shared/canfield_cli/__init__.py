"""The ``canfield-race`` console script: a dispatcher that belongs to no side.

Subcommands register themselves in the ``canfield_race.commands``
entry-point group (see ``pyproject.toml``): the server's (``serve``,
``redis``, ``baseline``), the client's (``bot``, ``bench``) and the
engine-only ones kept here in ``canfield_cli.commands`` (``deal``,
``play``, ``solve``, ``analyse``, ``bench-engine``), which need nothing but the
``canfield`` engine. This package imports only ``canfield`` and the
standard library; it reaches the server and client only through entry
points, so neither of them has to import the other.
"""
