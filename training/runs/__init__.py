"""The machinery every trainer's run shares: its config library, run directory, signals and pictures."""
