"""A person against players: the terminal game (``kdenv play``) and the web game (``kdenv play --web``)."""
