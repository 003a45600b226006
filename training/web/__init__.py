"""The static record viewer (``kdenv view``) and the pages and state it shares with the web game (agents.play.web)."""
