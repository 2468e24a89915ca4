"""An example bot: claims the longest route it can pay for, with as few wilds as it can.

A second file in the same folder, to show that a file bot can be any module
defining one ``Bot`` subclass. ``self.board`` (sent at each game start) gives
every route's length, colour and cities.

    arena play --bot "cmd:{python} -m bots.filebot examples/python-bot/greedy.py" --bot random
"""

from bots.sdk import Bot


class LongestClaim(Bot):
    name = "longest-claim"

    def on_game_start(self, observation):
        self.length = {route["id"]: route["length"] for route in self.board["routes"]}

    def choose(self, observation, legal_actions):
        claims = [a for a in legal_actions if str(a).startswith("claim")]
        if claims:
            return max(claims, key=lambda a: (self.length[a.route], -a.wilds, -a.route))
        for action in legal_actions:
            if str(action) == "draw deck":
                return action
        return legal_actions[0]  # ticket choices come smallest first
