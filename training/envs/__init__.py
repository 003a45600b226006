"""Environments for a learner: one learner seat against opponents, many games a call (``one_learner``) or one
game (``single_agent``, the Gymnasium view with player specs)."""
