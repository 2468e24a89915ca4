"""The ``arena`` command's groups, one module each; ``arena/cli.py`` registers them."""
