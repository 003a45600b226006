"""The compiled rules core (numba): many games as arrays, the one fast kernel of the suite.

``tables`` builds what the compiled code needs from the engine's data; ``grid`` holds kingdoms,
``machine`` the draft and round machine, ``observe`` the observations and masks, ``rng`` the random
generators that compiled callers own and pass in (one state per game). The vector env
(:mod:`kdenv.vector`) and the search players' playouts (:mod:`agents.batched`) run on it; the
pure-Python :class:`kdenv.game.Game` stays the readable reference it is tested against.
"""
