"""The ``canfield-race`` console script: a dispatcher that belongs to no side.

Subcommands register themselves in the ``canfield_race.commands``
entry-point group (see ``pyproject.toml``): the server's (``serve``,
``redis``, ``baseline``), the client's (``bot``), the benchmarks'
(``bench``, ``bench-quick``, ...) and the engine-only ones kept here in
``canfield_cli.commands`` (``deal``, ``play``, ``solve``, ``analyse``,
``bench-engine``), which need nothing but the ``canfield`` engine. This
package imports only ``canfield`` and the standard library; it reaches the
server, the client and the benchmarks only through entry points, so none
of them has to import another.
"""
