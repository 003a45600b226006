"""Multi-agent training with RLlib: the PettingZoo env, the masking RL module of agents, PPO, checkpoints."""
