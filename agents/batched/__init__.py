"""The scripted policies compiled (numba) over the core's games: random, ``gprd``, Full Greedy (``fg``) and Full
Greedy with its ties broken (``fgt``), and the drivers that play them: a seat's move, playouts, the opponents of the
vector env and the teacher of behaviour cloning.

The rules are those of :mod:`kdenv.batched` (kingdoms as grids, the draft machine), with its tables passed in as the
argument ``t``; this package holds only how the policies choose. By job:

* :mod:`agents.batched.workspace`: the policies' scratch arrays, the acting king's kingdom and the line's free slots;
* :mod:`agents.batched.greedy`: Full Greedy's filters, values and best moves, and ``gprd``'s placements;
* :mod:`agents.batched.tie_break`: the weights and leans that break Full Greedy's ties (``fgt``);
* :mod:`agents.batched.random_moves`: uniformly random legal moves;
* :mod:`agents.batched.policy`: the seat codes (:class:`~agents.batched.policy.Policy`), a policy's move and the
  drivers that play games on with it.

:class:`agents.playout.Snapshot` is the Python side, and the learner's vector view (``training.envs.one_learner``)
seats these policies as opponents. ``tests/conformance`` checks them against the engine and the Python players.
"""
