"""A submitted bot as a plain file: claims when it can, else draws blind."""

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
