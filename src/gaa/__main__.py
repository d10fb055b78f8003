"""``python -m gaa``: the ``gaa`` command line."""

from gaa.cli import main

main()
