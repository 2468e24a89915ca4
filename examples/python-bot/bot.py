"""An example bot in one Python file: claims a route when it can, else draws blind.

Run it in a game:
    arena play --bot "cmd:{python} -m bots.filebot examples/python-bot" --bot random
Submit it:
    arena submit claim-first --file examples/python-bot
"""

from bots.sdk import Bot


class ClaimFirst(Bot):
    name = "claim-first"

    def choose(self, observation, legal_actions):
        for action in legal_actions:
            if str(action).startswith("claim"):
                return action
        for action in legal_actions:
            if str(action) == "draw deck":
                return action
        return legal_actions[0]
