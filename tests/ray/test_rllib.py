"""RLlib's PPO on the vector env (and the PettingZoo env): a few iterations with masks, resume, and the result as an
rllib: player."""

import json

import pytest

pytest.importorskip("ray")

from agents.checkpoint import CheckpointError
from agents.registry import make_player
from kdenv.replay import read_records, replay_record
from kdenv.rules import Rules
from training.arena.tournament import Tournament
from training.backends.local import InProcess
from training.rllib.config import rllib_config
from training.rllib.train import train_rllib
from training.runs.config import ConfigError

TINY = {
    "name": "tiny",
    "env": {"num_players": 2, "rules": "", "gains": True},
    "network": {"channels": 8, "blocks": 1, "hidden": 32},
    "rllib": {"iterations": 2, "env_runners": 1, "envs_per_runner": 2, "train_batch_size": 256,
              "minibatch_size": 64, "epochs": 1},
    "checkpoint_every": 1,
    "eval": {"every": 2, "games": 4, "opponents": ["random"]},
}  # fmt: skip


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def trained(local_ray, tmp_path_factory):
    """A self-play run of two iterations, then resumed for a third."""
    runs = tmp_path_factory.mktemp("rllib")
    config = rllib_config({**TINY, "runs_dir": str(runs)})
    run = train_rllib(config)
    assert [m["iteration"] for m in lines(run / "metrics.jsonl")] == [1, 2]
    train_rllib(rllib_config({**TINY, "runs_dir": str(runs)}, ["rllib.iterations=3"]), resume=run)
    return run


def test_rllib_trains_with_masks_and_resumes(trained):
    metrics = lines(trained / "metrics.jsonl")
    assert [m["iteration"] for m in metrics] == [1, 2, 3]  # the resumed run went on from its checkpoint
    assert metrics[-1]["step"] > metrics[0]["step"] > 0 and all(m["entropy"] > 0 for m in metrics)
    evaluations = lines(trained / "eval.jsonl")
    assert [e["step"] for e in evaluations] == [metrics[1]["step"], metrics[2]["step"]]
    assert evaluations[0]["results"]["random"]["games"] == 4
    assert (trained / "learning.png").is_file() and (trained / "checkpoint").is_dir()


def test_the_trained_policy_plays_legal_games_as_a_player(trained, tmp_path):
    spec = f"rllib:{trained}"
    tournament = Tournament([spec, "random"], players=2, games=8, seed=2, out=tmp_path, trace=True)
    assert tournament.run(InProcess(), progress=False).agent(spec).games == 8
    for record in read_records(tmp_path / "games.jsonl"):
        replay_record(record)  # every move legal, the scores as written
        seat = record["agents"].index(spec)
        traces = [move["trace"] for move in record["moves"] if move["player"] == seat]
        assert traces and all(t["kind"] == "policy" and -1.5 < t["value"] < 1.5 for t in traces)
        assert all(sum(c.get("chosen", False) for c in t["candidates"]) == 1 for t in traces)
    sampler = make_player(f"{spec},sample=true", 2, Rules())
    assert sampler.sample


def test_an_rllib_player_of_another_table_or_path_is_a_one_line_error(trained, tmp_path):
    with pytest.raises(CheckpointError, match="trained for 2 players .* cannot play 4 players"):
        make_player(f"rllib:{trained}", 4, Rules())
    with pytest.raises(CheckpointError, match="not found"):
        make_player(f"rllib:{tmp_path / 'nothing'}")
    with pytest.raises(CheckpointError, match="holds no RLlib module"):
        make_player(f"rllib:{tmp_path}")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (["rllib.iteratons=3"], "unknown config key 'rllib.iteratons'"),
        (["rllib.opponents=[fg, fg]"], "lists 2 players; give 1"),
        (["rllib.opponents=[nobody]"], "unknown opponent 'nobody'"),
        (["rllib.lr=-1"], "'rllib.lr' must be positive"),
        (["rllib.opponents=[mce]"], "'mce' cannot play in the vector env .*set rllib.env: pettingzoo"),
        (["rllib.env=gym"], "'rllib.env'"),
    ],
)
def test_bad_rllib_configs_are_one_line_errors(changes, message):
    with pytest.raises(ConfigError, match=message):
        rllib_config(TINY, changes)


def test_the_module_reads_a_ppo_checkpoints_weights_and_plays_its_moves():
    import numpy as np
    import torch

    from agents.checkpoint import read_checkpoint, starting_weights
    from agents.ppo_player import PPOPlayer, checkpoint_path
    from agents.rllib_module import KingdomRLModule, weights_from_ppo
    from kdenv.game import Game
    from kdenv.kingdomino_v0 import raw_env
    from kdenv.view import PublicView

    settings, state = read_checkpoint(checkpoint_path("default", 2))
    env = raw_env(2, gains=True)
    module = KingdomRLModule(
        observation_space=env.observation_space("player_0"), action_space=env.action_space("player_0"),
        model_config=settings.network.to_dict(), inference_only=True,
    )  # fmt: skip
    policy = weights_from_ppo(starting_weights(settings, state))  # a value per seat: the module keeps its own
    module.load_state_dict(module.state_dict() | {key: torch.as_tensor(value) for key, value in policy.items()})
    player = PPOPlayer()
    player.seat_at(2, Rules())
    game = Game(2, Rules(), seed=5)
    rng = np.random.default_rng(0)
    while not game.is_over:
        view = PublicView(game)
        observation = {k: torch.from_numpy(v[None]) for k, v in env.encoder.encode(view, game.current_player).items()}
        mask = torch.from_numpy(np.isin(np.arange(env.num_actions), view.legal_actions()).astype(np.int8)[None])
        with torch.inference_mode():
            logits = module.forward_inference({"obs": {"observation": observation, "action_mask": mask}})
        ours = logits["action_dist_inputs"][0].numpy()
        theirs = player.logits(view, game.current_player)
        legal = view.legal_actions()
        np.testing.assert_allclose(ours[legal], theirs[legal], rtol=1e-4, atol=1e-4)
        game.step(int(rng.choice(legal)))


@pytest.mark.parametrize("tower", [False, True], ids=["ppo", "tower"])
def test_a_run_starts_from_a_ppo_checkpoint(local_ray, tmp_path, tower):
    """From a PPO checkpoint, all its weights; from one whose value has a tower (expert iteration's), its policy."""
    import torch

    from agents.checkpoint import policy_weights, read_checkpoint
    from agents.rllib_module import weights_from_ppo
    from agents.rllib_player import POLICY
    from tests.helpers.checkpoints import SETTINGS, write_checkpoint
    from training.rllib.train import algorithm_config, start_from

    heads = {"seat_values": True, "value_tower": True} if tower else {}
    write_checkpoint(tmp_path / "tiny.zip", {**SETTINGS, "network": {**SETTINGS["network"], **heads}})
    config = rllib_config(
        {**TINY, "env": {"num_players": 4}, "network": SETTINGS["network"], "init": str(tmp_path / "tiny.zip")}
    )
    algo = algorithm_config(config).build_algo()
    try:
        start_from(algo, str(tmp_path / "tiny.zip"))
        learners = algo.learner_group.foreach_learner(lambda learner: learner.module[POLICY].state_dict())
        (state,) = [result.get() for result in learners]
        remote = algo.env_runner_group.foreach_env_runner(
            lambda runner: runner.module[POLICY].state_dict(), local_env_runner=False
        )
    finally:
        algo.stop()
    weights = read_checkpoint(tmp_path / "tiny.zip")[1]
    expected = weights_from_ppo(policy_weights(weights) if tower else weights)
    fresh = {key for key in state if key.startswith(("value.", "heads.value."))} if tower else set()  # the value
    assert set(state) == set(expected) | fresh
    assert all((state[key].cpu() == expected[key].cpu()).all() for key in expected)
    assert len(remote) == config.rllib.env_runners == 1
    for runner in remote:  # the env runners play the same policy
        assert all((torch.as_tensor(runner[key]) == expected[key].cpu()).all() for key in expected)
    with pytest.raises(ConfigError, match="config key 'init'"):
        rllib_config({**TINY, "init": str(tmp_path / "tiny.zip")})  # a 4-player checkpoint at a 2-player table


def test_an_rllib_run_exports_as_a_ppo_checkpoint_that_plays_its_moves(trained, tmp_path):
    import numpy as np

    from kdenv.game import Game
    from kdenv.view import PublicView
    from training.rllib.export import export_ppo

    export_ppo(trained, tmp_path / "exported.zip")
    ours, theirs = make_player(f"ppo:{tmp_path / 'exported.zip'}", 2, Rules()), make_player(f"rllib:{trained}", 2)
    game, rng = Game(2, Rules(), seed=3), np.random.default_rng(1)
    while not game.is_over:
        view, legal = PublicView(game), game.legal_actions()
        a, b = ours.logits(view, game.current_player), theirs.logits(view, game.current_player)
        np.testing.assert_allclose(a[legal], b[legal], rtol=1e-4, atol=1e-4)
        game.step(int(rng.choice(legal)))


def test_the_pettingzoo_path_trains_against_any_player(local_ray, tmp_path):
    """``rllib.env: pettingzoo`` steps the AEC env one game at a time, so an opponent the vector env cannot play
    (a search) sits there."""
    config = rllib_config(
        {**TINY, "runs_dir": str(tmp_path), "eval": {"games": 0}},
        ["rllib.env=pettingzoo", "rllib.opponents=[mce:playouts=2]", "rllib.iterations=1", "rllib.envs_per_runner=1"],
    )
    run = train_rllib(config)
    (metrics,) = lines(run / "metrics.jsonl")
    assert metrics["iteration"] == 1 and metrics["step"] >= TINY["rllib"]["train_batch_size"]
