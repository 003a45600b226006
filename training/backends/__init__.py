"""Where work runs, behind one interface (as SB3's vector envs share ``VecEnv``): in this process, in worker
processes of this machine, or on Ray.

A :class:`~training.backends.base.Backend` runs work of two shapes: *tasks*, each item one call of a function,
handed back as they finish (a tournament's games), and a *crew*, one object per worker that keeps its state from
call to call, called all together (expert iteration's self-play, each worker with its network and its games).
:func:`~training.backends.choose.choose_backend` makes one from its name.
"""
