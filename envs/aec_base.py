"""What every turn-based AEC env of the suite shares (no rules here).

`TurnBasedAECEnv` holds the pieces that are identical across games: per-agent spaces, the
win_loss rewards, the native replacement for PettingZoo's `TerminateIllegalWrapper` (an illegal move ends the game with
-1 for the offender and 0 for the others), and `close`. Each game's env keeps its own reset, step,
observation, rewards and rendering.
"""
from __future__ import annotations

from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger


class TurnBasedAECEnv(AECEnv):
    """Base of the suite's AEC envs; subclasses fill `observation_spaces` and `action_spaces`."""

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _set_win_loss_rewards(self) -> None:
        """win_loss rewards: the game's returns at the end, zero before."""
        game, rewards = self.game, self.rewards
        if game.is_terminal():
            for a, r in zip(self.possible_agents, game.returns()):
                rewards[a] = float(r)
        else:
            for a in rewards:
                rewards[a] = 0.0

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
