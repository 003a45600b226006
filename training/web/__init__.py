"""Games in the browser: the static record viewer (``kdenv view``) and the web game (``kdenv play --web``)."""
