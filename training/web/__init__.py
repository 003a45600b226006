"""The web game (``kdenv play --web``): its server, request guard and offered players; pages from kdenv.viewer."""
