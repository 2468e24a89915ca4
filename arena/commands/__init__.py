"""Command groups of the ``arena`` command line, one module each (registered in cli.py)."""
