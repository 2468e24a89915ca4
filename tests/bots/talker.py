"""A test bot that writes a line to stderr at every decision and, given a number N, raises
after N decisions (so it forfeits with a traceback in its stderr log). For the replay
viewer's per-step stderr and forfeit links; never installed as a plugin.

    python tests/bots/talker.py [N]
"""

import os
import sys

from bots.runner import run_bot
from bots.sdk import Bot


class Talker(Bot):
    def __init__(self, crash_after: int) -> None:
        super().__init__(0)
        self.crash_after = crash_after
        self.decisions = 0

    def choose(self, observation, legal_actions):
        self.decisions += 1
        choice = legal_actions[0]
        print(f"talker decision {self.decisions}: taking {choice}", file=sys.stderr, flush=True)
        if self.crash_after and self.decisions > self.crash_after:
            raise RuntimeError(f"talker gives up after {self.crash_after} decisions")
        return choice


crash_after = int(sys.argv[1]) if len(sys.argv) > 1 else 0
endpoint, token = os.environ["ARENA_CONNECT"], os.environ["ARENA_TOKEN"]
sys.exit(run_bot(Talker(crash_after), endpoint, token, "talker"))
