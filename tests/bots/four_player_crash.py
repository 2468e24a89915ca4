"""A bot that plays two-player games (the longest claim it can pay for) and crashes in
four-player ones: it reads the number of players from its observation and raises. A
validation that plays two-player games only lets it pass; one per board does not."""

from bots.sdk import Bot


class CrashesWithFour(Bot):
    name = "crashes-with-four"

    def on_game_start(self, observation):
        self.length = {route["id"]: route["length"] for route in self.board["routes"]}

    def choose(self, observation, legal_actions):
        if observation.players == 4:
            raise RuntimeError("four players: this bot was only written for two")
        claims = [a for a in legal_actions if str(a).startswith("claim")]
        if claims:
            return max(claims, key=lambda a: (self.length[a.route], -a.wilds, -a.route))
        for action in legal_actions:
            if str(action) == "draw deck":
                return action
        return legal_actions[0]
