"""Start an installed bot plugin as a bot process, with nothing else imported.

    python -m bots NAME [--connect ENDPOINT] [--token TOKEN]

The referee starts plugin bots this way (endpoint and token in ARENA_CONNECT
and ARENA_TOKEN); ``arena bot run`` is the same for people. Kept free of the
CLI's imports, because every match starts a process per seat.
"""

from __future__ import annotations

import argparse
import os
import sys

from bots import get_bot
from bots.runner import run_bot


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bots", description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--connect", default=os.environ.get("ARENA_CONNECT"))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"))
    args = parser.parse_args()
    if not args.connect or not args.token:
        parser.error("give --connect and --token (or ARENA_CONNECT and ARENA_TOKEN)")
    try:
        spec = get_bot(args.name)
    except KeyError as error:
        parser.error(str(error.args[0]))
    return run_bot(spec.factory(0), args.connect, args.token, spec.name, spec.version)


if __name__ == "__main__":
    sys.exit(main())
