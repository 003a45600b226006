"""MaskablePPO training on the vector env: the config, the run directory and its checkpoints, the warm start
by imitation, the self-play league, the run's callbacks, the Stable-Baselines3 vector env and its benchmark."""
