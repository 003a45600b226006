"""The web game of ``kdenv play --web``: its server, the checks on each request and the players it offers."""
