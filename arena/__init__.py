"""ttr-arena: an AI tournament framework for the Ticket to Ride family of games."""

from arena.native import select

# 'compiled' or 'pure': which build of the engine this process runs (arena/native.py).
ENGINE_BUILD = select()
