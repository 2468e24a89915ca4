"""arena.envs: the PettingZoo and Gymnasium environments over the engine.

The action space covers every legal action of random games of every playable variant and
player count; the encoded observation is the same for two states that differ only in what a
seat cannot see; the environments pass PettingZoo's and Gymnasium's own tests; a policy
becomes a bot that `arena submit` accepts under the sandbox and that plays a tournament.
"""

from __future__ import annotations

import itertools
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import arena.envs
from arena.engine import NotationError
from arena.envs import ActionSpace, ObservationEncoder, aec, gym, policy_bot
from arena.envs.rewards import rank_reward, score_reward
from arena.variants import all_variants, get_variant
from bots.filebot import load_factory
from tests.journey import Journey

PLAYABLE = [name for name, v in all_variants().items() if v.playable]
TABLES = [
    (name, n)
    for name in PLAYABLE
    for n in range(get_variant(name).min_players, get_variant(name).max_players + 1)
]


def random_states(variant: str, players: int, seed: int, every: int = 7):
    """States along one random game (copies), and the final one."""
    state = get_variant(variant).new_game(players, seed)
    rng = random.Random(seed)
    moves = 0
    while not state.is_over:
        if moves % every == 0:
            yield state.copy()
        state.apply(rng.choice(state.legal_actions()))
        moves += 1
    yield state


# ---------------------------------------------------------------------- the action space


@pytest.mark.parametrize(("variant", "players"), TABLES)
def test_every_legal_action_is_in_the_space_and_the_mask_is_exactly_the_legal_set(variant, players):
    env = aec(variant, players)
    for seed in range(2):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.state.is_over:
            legal = env.state.legal_actions()
            observed = env.observe(env.agent_selection)
            marked = {env.action_to_text(i) for i in np.flatnonzero(observed["action_mask"])}
            assert marked == {str(a) for a in legal}
            for agent in env.agents:
                if agent != env.agent_selection:
                    assert not env.observe(agent)["action_mask"].any()
            env.step(env.text_to_action(str(rng.choice(legal))))


@pytest.mark.parametrize("variant", PLAYABLE)
def test_index_and_text_round_trip_and_the_index_depends_on_the_map_alone(variant):
    space = ActionSpace(get_variant(variant))
    assert len(set(space.texts)) == len(space)
    for index, text in enumerate(space.texts):
        assert space.text_to_action(text) == index
        assert space.action_to_text(index) == text
    again = ActionSpace(get_variant(variant))
    assert again.texts == space.texts
    assert aec(variant, 2).action_space("player_0").n == len(space)


def test_the_usa_index_is_the_documented_order():
    """docs/ENVS.md: draws, tickets, keeps (none first, by size), pass, then claims by route."""
    space = ActionSpace(get_variant("usa"))
    head = ["draw deck", "draw 0", "draw 1", "draw 2", "draw 3", "draw 4", "tickets"]
    keeps = ["keep none", "keep 0", "keep 1", "keep 2", "keep 0 1", "keep 0 2", "keep 1 2"]
    assert list(space.texts[:16]) == [*head, *keeps, "keep 0 1 2", "pass"]
    route1 = get_variant("usa").board.data["routes"][0]
    colours = get_variant("usa").rules.colours if route1["color"] == "gray" else [route1["color"]]
    first = [f"claim 1 {colours[0]}", f"claim 1 {colours[0]} w1"]
    assert list(space.texts[16:18]) == first
    assert len(space) == 1076


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("claim 999 red", NotationError),  # no such route on the map
        ("claim 1 purple", NotationError),  # no such colour
        ("station wien red", NotationError),  # Europe's verb in USA
        ("fly to the moon", NotationError),
        ("", NotationError),
        ("keep 0 1 2 3", NotationError),  # no offer is that large in USA
    ],
)
def test_text_that_names_no_action_of_the_map_is_refused(text, error):
    with pytest.raises(error):
        aec("usa", 2).text_to_action(text)


@pytest.mark.parametrize("index", [-1, 1076, 2.5, "3", None])
def test_an_index_outside_the_space_is_refused(index):
    with pytest.raises(IndexError, match=r"0\.\.1075"):
        aec("usa", 2).action_to_text(index)


def test_an_illegal_action_is_refused_with_its_text_and_the_rule_and_changes_nothing():
    env = aec("usa", 2, seed=3)
    env.reset()
    before = env.state.fingerprint()
    claim = env.space.texts[16]  # a claim, during the initial ticket choice
    with pytest.raises(ValueError, match=rf"action 16 \('{claim}'\) is not legal now: "):
        env.step(16)
    assert env.state.fingerprint() == before


# ---------------------------------------------------------------------- the observation


@pytest.mark.parametrize(("variant", "players"), TABLES)
def test_the_encoding_hides_what_the_seat_cannot_see(variant, players):
    """Two states that differ only in hidden information (``resample`` re-deals everything
    a seat cannot see) give that seat identical vectors and masks; another seat, whose own
    cards were re-dealt, sees the difference."""
    env = aec(variant, players)
    env.reset(seed=0)
    changed_for_others = 0
    for seed in range(3):
        for state in random_states(variant, players, seed):
            phases = getattr(state, "sampleable_phases", None)
            if state.is_over or (phases and state.phase not in phases()):
                continue
            for seat in range(players):
                other = env.possible_agents[(seat + 1) % players]
                agent = env.possible_agents[seat]
                env.state = state
                seen, theirs = env.observe(agent), env.observe(other)["observation"]
                try:
                    sampled = state.resample(seat, random.Random(seed))
                except ValueError:  # some games sample a setup only for the seat choosing
                    assert seat != state.to_move
                    continue
                env.state = sampled
                again = env.observe(agent)
                assert np.array_equal(seen["observation"], again["observation"])
                assert np.array_equal(seen["action_mask"], again["action_mask"])
                changed_for_others += not np.array_equal(theirs, env.observe(other)["observation"])
    assert changed_for_others, "the test can see a difference where there is one"


@pytest.mark.parametrize("variant", PLAYABLE)
def test_the_layout_documents_every_number_and_docs_envs_lists_every_field(variant):
    encoder = ObservationEncoder(get_variant(variant), 3)
    fields = encoder.layout
    assert fields[0].start == 0 and fields[-1].stop == encoder.size
    assert all(a.stop == b.start for a, b in itertools.pairwise(fields))
    docs = (_root() / "docs" / "ENVS.md").read_text()
    for field in fields:
        assert f"`{field.name}`" in docs, f"docs/ENVS.md does not describe {field.name}"


def test_ticket_progress_is_the_fewest_pieces_from_one_ends_network_to_the_others():
    """The encoded progress equals a brute force over the seat's own networks and the
    printed map's shortest paths (Floyd-Warshall by hand), at every decision of a game."""
    env = aec("europe", 3, seed=6)
    env.reset()
    board = env.variant.board
    cities = range(len(board.cities))
    far = {(a, b): 0 if a == b else math.inf for a in cities for b in cities}
    for r in range(board.num_routes):
        ends = (board.route_a[r], board.route_b[r])
        far[ends] = far[ends[::-1]] = min(far[ends], board.route_length[r])
    for k, a, b in itertools.product(cities, cities, cities):
        far[a, b] = min(far[a, b], far[a, k] + far[k, b])
    tickets = next(f for f in env.encoder.layout if f.name == "tickets")
    rng, checked = random.Random(6), 0
    while not env.state.is_over:
        seat = env.state.to_move
        observation = env.state.observation(seat)
        block = env.observe(env.agent_selection)["observation"][tickets.start : tickets.stop]
        block = block.reshape(-1, 4)
        own = [
            (board.route_a[r - 1], board.route_b[r - 1]) for r in observation.public[seat].routes
        ]
        network = {c: {c} for c in cities}
        for a, b in own:
            joined = network[a] | network[b]
            for c in joined:
                network[c] = joined
        for ticket in observation.tickets:
            a, b = board.ticket_a[ticket.id - 1], board.ticket_b[ticket.id - 1]
            done = b in network[a]
            needed = 0 if done else min(far[u, v] for u in network[a] for v in network[b])
            assert list(block[ticket.id - 1]) == [1, 0, done, needed]
            checked += 1
        env.step(int(rng.choice(list(np.flatnonzero(env.action_mask())))))
    assert checked > 100


def test_the_raw_typed_observation_is_the_engines():
    env = aec("europe", 3, seed=2)
    env.reset()
    assert env.raw_observation("player_1") == env.state.observation(1)


# ---------------------------------------------------------------------- rewards


def play_out(env, rng: random.Random) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
    return totals


def test_rewards_are_terminal_by_default_and_the_dense_ones_add_up_to_the_terminal_margin():
    env = aec("usa", 3, seed=11)
    env.reset()
    rng = random.Random(0)
    while not env.state.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(list(np.flatnonzero(mask)))))
        if not env.state.is_over:
            assert not any(env.rewards.values())
    scores = env.state.result().scores
    assert env.rewards["player_0"] == scores[0] - max(scores[1:])
    dense = aec("usa", 3, seed=11, dense=True)
    dense.reset()
    totals = play_out(dense, random.Random(0))
    for seat, agent in enumerate(dense.possible_agents):
        others = [s for i, s in enumerate(scores) if i != seat]
        assert totals[agent] == pytest.approx(scores[seat] - max(others))


def test_rank_and_win_rewards_follow_the_ranks():
    for reward in ("rank", "win"):
        env = aec("usa", 4, seed=4, reward=reward)
        env.reset()
        totals = play_out(env, random.Random(1))
        ranks = env.state.result().ranks
        best = [a for a, r in zip(env.possible_agents, ranks, strict=True) if r == 1]
        assert all(totals[a] == 1.0 for a in best)
        if reward == "win":
            assert sorted(set(totals.values())) in ([-1.0, 1.0], [1.0])


def test_rank_reward_shares_tied_places():
    class Result:
        ranks = (1, 1, 3, 4)

    assert [rank_reward(Result, s) for s in range(4)] == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reward": "money"}, "reward must be one of score, rank, win"),
        ({"reward": "win", "dense": True}, "dense=True"),
        ({"render_mode": "3d"}, "render_mode"),
    ],
)
def test_bad_options_are_refused_with_what_to_do(options, message):
    with pytest.raises(ValueError, match=message):
        aec("usa", 2, **options)


def test_an_unplayable_variant_or_player_count_is_refused():
    with pytest.raises(ValueError, match="2-5 players"):
        aec("usa", 6)
    with pytest.raises(KeyError, match="installed"):
        aec("monopoly", 2)
    unplayable = [n for n, v in all_variants().items() if not v.playable]
    for name in unplayable:
        with pytest.raises(Exception, match="cannot be played"):
            aec(name, 2)


# ---------------------------------------------------------------------- the libraries' own tests


@pytest.mark.parametrize("variant", PLAYABLE)
@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_api_and_seed_tests(variant, players):
    api_test(aec(variant, players), num_cycles=200)
    seed_test(lambda: aec(variant, players), num_cycles=50)


def test_gymnasium_check_env_and_a_game_against_bots():
    env = gym("usa", opponents=["random", "planner"], seat=None)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=3)
    assert observation.shape == env.observation_space.shape
    done, steps = False, 0
    while not done:
        legal = np.flatnonzero(env.action_masks())
        assert np.array_equal(legal, np.flatnonzero(info["action_mask"]))
        observation, _, done, _, info = env.step(int(legal[0]))
        steps += 1
    assert len(info["scores"]) == 3 and steps > 10
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_charges_an_illegal_action_and_plays_nothing_or_raises_if_asked():
    env = gym("usa", opponents=["random"])
    observation, info = env.reset(seed=2)
    before = env.game.state.fingerprint()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal"]) == (-1.0, False, True)
    assert env.game.state.fingerprint() == before and np.array_equal(again, observation)
    strict = gym("usa", opponents=["random"], illegal="raise")
    strict.reset(seed=2)
    with pytest.raises(ValueError, match="is not legal now"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="penalty"):
        gym("usa", illegal="ignore")


def test_gym_refuses_unknown_bots_and_seats():
    with pytest.raises(KeyError, match="installed"):
        gym("usa", opponents=["nobody"])
    with pytest.raises(ValueError, match="does not play"):
        gym("usa", opponents=["cardgame-greedy"])
    with pytest.raises(ValueError, match="seat must be"):
        gym("usa", opponents=["random"], seat=2)


# ---------------------------------------------------------------------- policy to bot


def first_claim(observation: np.ndarray, mask: np.ndarray) -> int:
    """A policy: the last legal index (claims come after draws and tickets in the space)."""
    return int(np.flatnonzero(mask)[-1])


def test_policy_bot_plays_in_process_and_refuses_an_illegal_choice():
    env = gym("usa", opponents=[policy_bot(first_claim)(0)], seat=0)
    _, info = env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    illegal = policy_bot(lambda observation, mask: int(np.flatnonzero(mask == 0)[0]))(0)
    game = get_variant("usa").new_game(2, 1)
    illegal.start_game("1:0", game.observation(game.to_move))
    with pytest.raises(ValueError, match="marks illegal"):
        illegal.choose(game.observation(game.to_move), game.legal_actions())
    with pytest.raises(TypeError):
        policy_bot("not a function")


def test_the_example_trains_a_bot_that_is_submitted_in_the_sandbox_and_plays_a_tournament(
    tmp_path,
):
    """examples/rl end to end, in miniature: train, save beside the bot file, submit the
    folder (validation games in the sandbox), play a tournament, then meet the registered
    bot in process as a Gymnasium opponent."""
    bot = tmp_path / "rl-bot"
    shutil.copytree(
        _root() / "examples" / "rl" / "bot", bot, ignore=shutil.ignore_patterns("*.npz")
    )
    trained = subprocess.run(
        [
            sys.executable,
            _root() / "examples" / "rl" / "train.py",
            "--games",
            "4",
            "--epochs",
            "1",
            "--hidden",
            "16",
            "--finetune",
            "2",
            "--eval",
            "2",
            "--out",
            bot / "model.npz",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert trained.returncode == 0, trained.stdout + trained.stderr
    assert "vs random" in trained.stdout and (bot / "model.npz").is_file()
    arena = Journey(tmp_path / "work")
    done = arena("submit", "rl-mlp", "--file", bot, "--variant", "usa")
    assert done.code == 0, done.text
    assert "rl-mlp@1" in done.text
    done = arena(
        "tournament",
        "run",
        "--name",
        "rl",
        "--bot",
        "rl-mlp",
        "--bot",
        "random",
        "--players",
        "2",
        "--games",
        "2",
        "--workers",
        "1",
    )
    assert done.code == 0, done.text
    rows = arena("leaderboard", "--variant", "usa", "--players", "2")
    assert rows.code == 0 and "rl-mlp@1" in rows.out, rows.text
    assert arena.rows("SELECT bot, fault, fault_detail FROM seats WHERE fault IS NOT NULL") == []
    played = arena.rows(
        "SELECT COUNT(*), COUNT(DISTINCT m.id) FROM seats s JOIN matches m ON m.id = s.match_id"
        " JOIN tournaments t ON t.id = m.tournament_id"
        " WHERE t.name = 'rl' AND s.bot = 'rl-mlp@1'"
    )
    assert played[0][0] >= 2 and played[0][0] == played[0][1], "one seat in every match"
    env = gym("usa", opponents=["rl-mlp@1"], data_dir=arena.data)
    _, info = env.reset(seed=4)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(KeyError, match="version 7"):
        gym("usa", opponents=["rl-mlp@7"], data_dir=arena.data)


def test_a_make_bot_file_from_policy_bot_loads_as_a_file_bot(tmp_path):
    (tmp_path / "bot.py").write_text(
        "import numpy as np\n"
        "from arena.envs import policy_bot\n"
        "make_bot = policy_bot(lambda v, mask: int(np.flatnonzero(mask)[-1]), name='last')\n"
    )
    bot = load_factory(tmp_path)("1:0")
    game = get_variant("usa").new_game(2, 1)
    bot.start_game("1:0", game.observation(game.to_move))
    assert bot.choose(game.observation(game.to_move), game.legal_actions()) in game.legal_actions()


def test_without_the_extra_the_import_says_how_to_install_it():
    """In a clone the advice is `make rl` (pip's `ttr-arena[rl]` names no package a clone
    can install); the example says it in one line, no traceback."""
    code = "import sys; sys.modules['pettingzoo'] = None; import arena.envs"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "ImportError: arena.envs needs the rl extra (pettingzoo is not installed): "
        f"run 'make rl' in {_root()} (it installs the extra into its .venv)"
    )
    code = "import sys, runpy; sys.modules['gymnasium'] = None; runpy.run_path(sys.argv[1])"
    train = str(_root() / "examples" / "rl" / "train.py")
    done = subprocess.run([sys.executable, "-c", code, train], capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: arena.envs needs the rl extra (gymnasium is not installed): run 'make rl' in "
        f"{_root()} (it installs the extra into its .venv)"
    ]
    makefile = (_root() / "Makefile").read_text()
    assert "\nrl: " in makefile and "-e '.[rl]'" in makefile
    doc = (_root() / "docs" / "ENVS.md").read_text()
    assert "make rl" in doc.split("python examples/rl/train.py", 1)[0]


def test_gymnasium_makes_the_environment_by_its_registered_id():
    """`gymnasium.make` could not make it (no registered id); the module:id form imports the
    arena first, as a training script written for any Gymnasium env does."""
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('arena.envs:ttr-arena/TicketToRide-v0', variant='newyork',"
        " opponents=['planner'])\n"
        "observation, info = env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__, env.unwrapped.game.variant.name, observation.shape)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["TicketToRideGym", "newyork"]
    assert "ttr-arena/TicketToRide-v0" in (_root() / "docs" / "ENVS.md").read_text()


def test_gym_truncates_an_episode_of_endless_illegal_actions():
    """An illegal index cost -1 and the learner moved again, for ever: no step limit."""
    env = gym("usa", opponents=["random"], max_steps=4)
    _, info = env.reset(seed=3)
    flags = []
    for _ in range(4):
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        _, reward, terminated, truncated, info = env.step(illegal)
        flags.append((reward, terminated, truncated))
    assert flags == [(-1.0, False, False)] * 3 + [(-1.0, False, True)]
    assert gym("usa").max_steps >= 1000, "far beyond a real game's decisions"


def _root():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent


def test_the_docs_examples_run():
    """Every self-contained example of docs/ENVS.md (those that start with their imports;
    a bot file's example needs its model beside it)."""
    text = (_root() / "docs" / "ENVS.md").read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    examples = [code for code in blocks if code.startswith("import")]
    assert len(examples) >= 3, "the AEC, parallel and vector examples"
    for code in examples:
        exec(compile(code, "docs/ENVS.md", "exec"), {})


@pytest.mark.parametrize("variant", PLAYABLE)
def test_the_incremental_encoding_equals_a_fresh_encoders_at_every_step(variant):
    """The encoder keeps blocks between steps (route owners, networks, each ticket's
    progress): at every decision of a game its vector equals that of an encoder that never
    saw the game before."""
    env = aec(variant, 3 if variant != "cardgame" else 2, seed=11)
    env.reset()
    rng, steps = random.Random(11), 0
    while not env.state.is_over:
        seat = env.state.to_move
        fresh = ObservationEncoder(env.variant, env.players)
        kept = env.observe(env.agent_selection)["observation"]
        assert np.array_equal(kept, fresh.encode(env.state.observation(seat))), steps
        env.step(int(rng.choice(list(np.flatnonzero(env.action_mask())))))
        steps += 1
    assert steps > 50


# ---------------------------------------------------------------------- the incremental writer

INCREMENTAL = [name for name in PLAYABLE if aec(name, 2).writer is not None]


def test_the_base_board_games_are_written_incrementally_and_the_editions_are_encoded():
    assert {"usa", "newyork"} <= set(INCREMENTAL)
    assert aec("europe", 2).writer is None and aec("cardgame", 2).writer is None


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(INCREMENTAL),
    players=st.sampled_from([2, 4]),
    seed=st.integers(0, 2**32),
    watch=st.floats(0.05, 1.0),
)
def test_the_incremental_observation_equals_a_from_scratch_one(variant, players, seed, watch):
    """Over whole random games, each seat observed at random moments (so several moves
    may pass between two of its observations), the vector the environment writes change
    by change equals the reference encoder's from the typed observation, built from scratch;
    so does the mask the legal set."""
    env = aec(variant, players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not env.state.is_over:
        for agent in env.agents:
            if agent == env.agent_selection or rng.random() < watch:
                seat = env.agent_name_mapping[agent]
                fresh = ObservationEncoder(env.variant, players)
                expected = fresh.encode(env.state.observation(seat))
                assert np.array_equal(env.observe(agent)["observation"], expected), steps
        mask = env.action_mask()
        marked = {env.action_to_text(i) for i in np.flatnonzero(mask)}
        assert marked == {str(a) for a in env.state.legal_actions()}
        env.step(int(rng.choice(list(np.flatnonzero(mask)))))
        steps += 1
    for agent in env.agents:  # the final position too
        seat = env.agent_name_mapping[agent]
        expected = ObservationEncoder(env.variant, players).encode(env.state.observation(seat))
        assert np.array_equal(env.observe(agent)["observation"], expected)
    assert steps > 20  # a whole game (New York's are short)


def test_a_state_set_from_outside_is_written_from_scratch():
    """``env.state`` replaced by another game's state: the rows start over, not from the
    routes and tickets of the game before."""
    env = aec("usa", 2)
    env.reset(seed=1)
    rng = random.Random(1)
    for _ in range(120):
        env.step(int(rng.choice(list(np.flatnonzero(env.action_mask())))))
    env.observe("player_0")
    env.state = get_variant("usa").new_game(2, 99)
    expected = ObservationEncoder(env.variant, 2).encode(env.state.observation(0))
    assert np.array_equal(env.observe("player_0")["observation"], expected)


# ---------------------------------------------------------------------- parallel and vector


@pytest.mark.parametrize("variant", PLAYABLE)
@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_parallel_api_and_seed_tests(variant, players):
    parallel_api_test(arena.envs.parallel(variant, players), num_cycles=400)
    parallel_seed_test(lambda: arena.envs.parallel(variant, players), num_cycles=100)


def test_the_parallel_env_plays_the_movers_action_and_ignores_the_others():
    env = arena.envs.parallel("usa", 2)
    observations, _ = env.reset(seed=4)
    reference = aec("usa", 2)
    reference.reset(seed=4)
    rng = random.Random(4)
    while env.agents:
        mover = reference.agent_selection
        other = next(a for a in env.agents if a != mover)
        assert not observations[other]["action_mask"].any()
        index = int(rng.choice(list(np.flatnonzero(observations[mover]["action_mask"]))))
        observations, rewards, terminations, _, infos = env.step({mover: index, other: 0})
        reference.step(index)
        for agent in reference.agents:
            if agent in observations:
                expected = reference.observe(agent)["observation"]
                assert np.array_equal(observations[agent]["observation"], expected)
            assert rewards[agent] == reference.rewards[agent]
    assert all(terminations.values()) and "scores" in infos["player_0"]
    assert env.state.fingerprint() == reference.state.fingerprint()


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal index per row."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


@pytest.mark.parametrize(("variant", "players"), [("usa", 2), ("usa", 4), ("europe", 3)])
def test_the_vector_env_autoresets_in_the_same_step_and_its_rows_are_the_movers(variant, players):
    """Every row is the seat to move's observation (equal to the reference encoder's), the
    mask its legal set; a game that ends returns its last observation in final_obs, its
    scores and every seat's terminal reward, and the row is the next game's first."""
    env = arena.envs.vector(variant, num_envs=6, players=players)
    observations, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    ended = steps = 0
    while ended < 8:
        states = env.states
        for i, state in enumerate(states):
            seat = state.to_move
            assert info["seat"][i] == seat
            expected = ObservationEncoder(env.variant, players).encode(state.observation(seat))
            assert np.array_equal(observations[i], expected), (i, steps)
            legal = {env.action_to_text(k) for k in np.flatnonzero(info["action_mask"][i])}
            assert legal == {str(a) for a in state.legal_actions()}
        before = [state.copy() for state in states]
        actions = random_legal(info["action_mask"], rng)
        acting = info["seat"].copy()
        observations, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            ended += 1
            finished = before[i]
            finished.apply(env.space.actions[actions[i]])
            assert finished.is_over and env.states[i] is not states[i]
            assert env.states[i].turn == 0 and not env.states[i].is_over
            result = finished.result()
            assert list(info["scores"][i]) == list(result.scores)
            terminal = [score_reward(result, seat) for seat in range(players)]
            assert list(info["rewards"][i]) == terminal
            assert rewards[i] == terminal[acting[i]]
            seat = int(acting[i])
            last = ObservationEncoder(env.variant, players).encode(finished.observation(seat))
            assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], last)
        for i in np.flatnonzero(~terminated):
            assert rewards[i] == 0.0 and not info["rewards"][i].any()
        steps += 1
    assert steps > 100


def test_the_vector_env_replays_the_same_games_from_the_same_seed():
    def run(seed: int) -> list[tuple]:
        env = arena.envs.vector("usa", num_envs=4, players=2)
        observations, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [(observations.tobytes(), info["action_mask"].tobytes())]
        for _ in range(300):
            observations, rewards, terminated, _, info = env.step(
                random_legal(info["action_mask"], rng)
            )
            trace.append((observations.tobytes(), rewards.tobytes(), terminated.tobytes()))
        return trace

    first = run(11)
    assert run(11) == first
    assert run(12) != first


def test_the_vector_env_refuses_an_illegal_action_and_plays_nothing():
    env = arena.envs.vector("usa", num_envs=3, players=2)
    _, info = env.reset(seed=2)
    before = [state.fingerprint() for state in env.states]
    actions = random_legal(info["action_mask"], np.random.default_rng(0))
    actions[1] = 16  # a claim, during the initial ticket choice
    with pytest.raises(ValueError, match=r"game 1: action 16 \('claim 1 .*'\) is not legal now"):
        env.step(actions)
    with pytest.raises(IndexError, match=r"0\.\.1075"):
        env.step(np.array([0, 0, 5000]))
    with pytest.raises(ValueError, match="3 integers"):
        env.step([0, 0])
    assert [state.fingerprint() for state in env.states] == before


def test_the_vector_env_against_bots_returns_the_learners_rows_and_rewards():
    env = arena.envs.vector("usa", num_envs=3, opponents=["random"], seat=None, reward="win")
    observations, info = env.reset(seed=8)
    rng = np.random.default_rng(8)
    seats, finished = set(), 0
    while finished < 6:
        for i, state in enumerate(env.states):
            assert state.to_move == info["seat"][i]
            seats.add(int(info["seat"][i]))
            expected = ObservationEncoder(env.variant, 2).encode(state.observation(state.to_move))
            assert np.array_equal(observations[i], expected)
        acting = info["seat"].copy()
        observations, rewards, terminated, _, info = env.step(
            random_legal(info["action_mask"], rng)
        )
        for i in np.flatnonzero(terminated):
            finished += 1
            won = info["ranks"][i][acting[i]] == 1
            assert rewards[i] == (1.0 if won else -1.0)
    assert seats == {0, 1}, "the learner's seat is drawn per game"


def test_the_parts_benchmark_names_every_part_of_a_vector_step():
    """``benchmarks/envs.py --parts`` (ENVS.md's table of where a step goes) runs and gives a
    figure for the engine's move, the whole step, the policy and each part."""
    done = subprocess.run(
        [sys.executable, "benchmarks/envs.py", "--parts", "--moves", "1500", "--envs", "8"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "microseconds of CPU per game step" in lines[0]
    figures = {line.rsplit(None, 1)[0].strip(): float(line.split()[-1]) for line in lines[1:]}
    names = ["apply", "observation changes", "legal_actions", "their indices"]
    assert all(name in figures for name in names), figures
    assert any(name.startswith("vector env step, whole") for name in figures), figures
