"""Helpers shared by tests of several folders: games to start from, tiny checkpoints, fake players."""
