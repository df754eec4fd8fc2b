"""What every turn-based AEC env of the suite shares (no rules here).

`TurnBasedAECEnv` holds the AEC protocol once (pgx's split: the base env steps, the game supplies
its rules calls): per-agent spaces, the bookkeeping of reset and of every step (the native
replacement for PettingZoo's `OrderEnforcingWrapper`: no step before reset or after the end; dead
steps; rewards accumulated; the next agent), `observe` (a done agent's mask all zeros), the rewards
(`win_loss` and `score_diff`, the names of `tabletop_rl.envs.rewards`), the native replacement for
`TerminateIllegalWrapper` (an illegal move ends the game with -1 for the offender and 0 for the
others), `render` and `close`. Each game's env supplies its rules calls and drawings: `reset`
(`_start(new state)`), `_observe(seat)`, `_is_legal`, `_apply`, `_potential`, `_finish` (the
end-of-game infos), `_render_text`, `_render_rgb`.

The edges every env shares (issue 36): an action that is a 0-d integer array (SB3's `predict`) is
its integer; `reset`'s seed is checked before the game's own `reset` runs (`__init_subclass__`
wraps it: None or an int >= 0, numpy integers included; True, 1.5, "1" raise a ValueError naming
`seed`); an agent that is not one of `possible_agents` in `observe`, `observation_space` or
`action_space` raises a ValueError naming it; `last()` before reset or after the end, and a raw
env's `step` then, raise a RuntimeError saying so.
"""
from __future__ import annotations

import functools

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from tabletop_rl.envs.game_state import integers, one_integer
from tabletop_rl.envs.rewards import AEC_REWARDS, WIN_LOSS, check_reward
from tabletop_rl.shown import shown


RENDER_MODES = ("ansi", "rgb_array", "human")


def check_seed(seed):
    """`reset`'s seed: None, or an int >= 0 (a numpy integer or a 0-d integer array is its int).
    Anything else is a ValueError naming `seed` (numpy took True as 1, and said only "SeedSequence
    expects int" of 1.5)."""
    if seed is None:
        return None
    seed = integers(seed, "seed")
    if seed < 0:
        raise ValueError(f"seed must be an int >= 0 or None; got {seed}")
    return seed


class _Seats(dict):
    """agent name -> seat. An agent that is not one of the env's is a ValueError naming it and the
    agents there are (a dict's KeyError named only the key; an unhashable one, a TypeError)."""

    def __getitem__(self, agent):
        try:
            return dict.__getitem__(self, agent)
        except (KeyError, TypeError):
            raise ValueError(f"agent must be one of {list(self)}; got {shown(agent)}") from None


class TurnBasedAECEnv(AECEnv):
    """Base of the suite's AEC envs. A subclass's `__init__` validates its own options and calls
    `_setup(...)`; it provides `reset`, `_observe(seat)` (observation and mask), `_apply` (the rules
    call of a move), `_is_legal`,
    `_potential` (the score_diff potential), `_finish`, `_render_text` and `_render_rgb`; `step`,
    `observe`, `_set_rewards` and `render` are shared.

    A move, as pgx splits it: the base checks it (`_step_allowed`, `_is_legal`), the game applies it
    (`_apply`), the base pays the rewards and picks the next agent (`_after_move`), calling the
    game's `_finish` at the end."""

    def __init_subclass__(cls, **kwargs):
        """A subclass's own `reset` gets its seed checked first (`check_seed`): every game's env alike."""
        super().__init_subclass__(**kwargs)
        reset = cls.__dict__.get("reset")
        if reset is None or getattr(reset, "_checks_seed", False):
            return

        @functools.wraps(reset)
        def checked_reset(self, seed=None, options=None):
            return reset(self, seed=check_seed(seed), options=options)

        checked_reset._checks_seed = True
        cls.reset = checked_reset

    def _setup(self, num_players: int, obs_space, act_space: gymnasium.spaces.Discrete, render_mode, protected: bool,
               reward: str = WIN_LOSS):
        """What every env's `__init__` sets: the agents `player_0..N-1`, their (shared) spaces, the
        render mode and the reward (both checked) and the protection flag. No game until `reset`."""
        self.reward_type = check_reward(reward, AEC_REWARDS)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None; got {render_mode!r}")
        self.render_mode = render_mode
        self._protected = protected
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._agent_seat = _Seats({a: i for i, a in enumerate(self.possible_agents)})
        self._obs_space, self._act_space = obs_space, act_space
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.game = None
        self._illegal_ended = False

    def step(self, action) -> None:
        """PettingZoo's step. Protected (`env()`): an action outside the action space raises, an
        illegal one ends the game (`_end_by_illegal_move`). Raw: the rules core raises a ValueError
        naming the action and why, and the state is unchanged. A 0-d integer array (SB3's `predict`
        for one observation) is its integer; bools, floats, strings and other arrays are refused."""
        action = one_integer(action)
        if not self._step_allowed(action):
            return
        agent = self.agent_selection
        if self._protected and not self._is_legal(action):
            n = self._act_space.n
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                    or not 0 <= action < n:  # bounds check, as AssertOutOfBoundsWrapper
                raise ValueError(f"action {action!r} is outside the action space Discrete({n})")
            self._end_by_illegal_move(agent)
            return
        truncated = self._apply(action)
        self._after_move(agent, truncated)

    def observe(self, agent):
        """PettingZoo's observe: the game's observation and mask of the agent's seat (`_observe`), the
        mask all zeros once the agent is done (`_mask`)."""
        if self.game is None:
            EnvLogger.error_observe_before_reset()
        obs, mask = self._observe(self._agent_seat[agent])
        return {"observation": obs, "action_mask": self._mask(agent, mask)}

    def observation_space(self, agent):
        return self.observation_spaces[self.possible_agents[self._agent_seat[agent]]]

    def action_space(self, agent):
        return self.action_spaces[self.possible_agents[self._agent_seat[agent]]]

    def last(self, observe: bool = True):
        """As AECEnv.last, with a clear error before reset() (AECEnv's is an AttributeError) and after
        the end, once every agent is done (a KeyError naming the last agent)."""
        if getattr(self, "game", None) is None:
            raise RuntimeError("last() called before reset(): call env.reset() first")
        if not self.agents:
            raise RuntimeError("last() called after the game ended (every agent is done): call env.reset()")
        return super().last(observe)

    def _mask(self, agent, mask):
        """The action mask `agent` sees: all zeros once it is terminated or truncated (an illegal
        move or a turn limit ends the game without a terminal rules state)."""
        if self._illegal_ended or agent not in self.terminations or self.terminations[agent] or self.truncations[agent]:
            mask = mask * 0
        return mask

    def _start(self, game) -> None:
        """reset(): `game` is the new rules state; every agent starts afresh, the seat to move first."""
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[game.current_player]
        self._skip_agent_selection = None
        self._illegal_ended = False
        self._phi = [0.0] * len(self.possible_agents)  # the score_diff potentials of the last move, per seat

    def _step_allowed(self, action) -> bool:
        """The checks before a move. False: nothing to apply (a dead step was taken, or a warning)."""
        if self._protected:
            if self.game is None:
                EnvLogger.error_step_before_reset()
            if not self.agents:
                EnvLogger.warn_step_after_terminated_truncated()
                return False
        elif getattr(self, "game", None) is None:
            raise RuntimeError("step() called before reset(): call env.reset() first")
        elif not self.agents:
            raise RuntimeError("step() called after the game ended (every agent is done): call env.reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return False
        return True

    def _after_move(self, agent, truncated: bool = False) -> None:
        """After `agent`'s move was applied: rewards, the end (by the rules, or truncated) or the
        next agent, and the human render."""
        self._cumulative_rewards[agent] = 0.0
        self._set_rewards()
        if self.game.is_terminal() or truncated:
            self._finish(truncated)
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        """"ansi": the text (`_render_text`); "human": prints it; "rgb_array": the image (`_render_rgb`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        if self.game is None:
            EnvLogger.error_render_before_reset()
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _set_rewards(self) -> None:
        """The rewards of the move just made (tabletop_rl.envs.rewards): "win_loss", the game's
        returns at the end and zero before; "score_diff", each seat's change of the game's public
        potential (the subclass's `_potential(state, seat)`, its spec's `potential`)."""
        game, rewards = self.game, self.rewards
        if self.reward_type == WIN_LOSS:
            if game.is_terminal():
                for a, r in zip(self.possible_agents, game.returns()):
                    rewards[a] = float(r)
            else:
                for a in rewards:
                    rewards[a] = 0.0
            return
        for seat, a in enumerate(self.possible_agents):
            phi = self._potential(game, seat)
            rewards[a] = phi - self._phi[seat]
            self._phi[seat] = phi

    def _end_by_illegal_move(self, agent) -> None:
        """As PettingZoo's TerminateIllegalWrapper: the game ends, the offender gets -1."""
        EnvLogger.warn_on_illegal_move()
        self._illegal_ended = True
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
            self.terminations[a] = True
            self.truncations[a] = True
            self.infos[a] = {"illegal_move_by": agent}
        self.rewards[agent] = -1.0
        self._accumulate_rewards()

    def close(self) -> None:
        pass
