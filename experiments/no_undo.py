"""The network that takes back its own last action: does masking the undo change how strong it is? (issue 31)

Watched at the table, cortex's shipped network drops prone and stands up again in one turn, four to six times over
(12 of 65 of its turns in 12 generated cortex fights against `tactical` have two stand-ups or more; 32 of its 325
actions are stand-ups; `tactical` stood up once in 192; the other rulesets' networks never do it). Dropping prone is
free and standing up costs an action, so it spends the turn's actions on nothing, and a GM confirming each one sees
an NPC that cannot decide. `NumpyPolicy(no_undo=True)` masks the kind that takes back the figure's last action of
this very turn (stand up right after dropping prone, or the reverse). Registered for `tactica evaluate` through a
`sitecustomize` module in a scratch folder (as experiments/tiebreak.py):

- `ppo-nu`: the shipped network with the mask;
- `pnet-nu`: `planner-net` (cortex's `best`) over that network.

    python experiments/no_undo.py --policies ppo-nu --against tactical --ruleset cortex \\
        --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json TABLE.json --ruleset cortex --maps 100 --vs ppo

The counts: `python experiments/no_undo.py count cortex ppo 12` (and `tactical`, `ppo-nu`, other rulesets).
Result: docs/results.md, cortex, "The network that takes back its own last action".
"""

from __future__ import annotations

import sys
from pathlib import Path

from agents.learned import NumpyPolicy
from agents.selective import NetPlannerPolicy

ROOT = Path(__file__).resolve().parents[1]


def network(seed=None) -> NumpyPolicy:
    """The ruleset's shipped network with the undo masked."""
    return NumpyPolicy(seed=seed, no_undo=True)


def planner_net(seed=None) -> NetPlannerPolicy:
    """`planner-net` over the shipped network with the undo masked."""
    p = NetPlannerPolicy(seed=seed)
    p.net.no_undo = True
    return p


_SITE = """
from agents.base import register_policy
from experiments.no_undo import network, planner_net
register_policy("ppo-nu", network)
register_policy("pnet-nu", planner_net)
"""


def count(ruleset: str, policy: str, fights: int) -> dict:
    """`policy` (first team) against `tactical` on generated maps 1000.. of `ruleset`, dice seed k on map 1000 + k:
    its turns, the turns with two stand-ups or more, its stand-ups and its actions."""
    from agents.base import make_policy, register_policy
    from envs.generators import generate_scenario
    from rules.dice import Dice
    from rules.scenario import load_scenario, new_battle

    register_policy("ppo-nu", network)
    register_policy("pnet-nu", planner_net)
    out = {"ruleset": ruleset, "policy": policy, "fights": fights, "turns": 0, "toggling_turns": 0, "stand_ups": 0,
           "actions": 0}
    for k in range(fights):
        spec, src = load_scenario(generate_scenario(ruleset, 1000 + k))
        b = new_battle(spec, Dice(k), src, record=False)
        b.start()
        s = b.state
        pols = {t: make_policy(policy if i == 0 else "tactical", k * 10 + i) for i, t in enumerate(s.teams)}
        cur, kinds = None, []
        while True:
            done = s.over or b.actions_resolved >= 600
            key = None if done else (s.round, s.turn_index, s.actor.id)
            if key != cur and kinds:
                out["turns"] += 1
                out["stand_ups"] += kinds.count("stand")
                out["toggling_turns"] += kinds.count("stand") >= 2
                kinds = []
            if done:
                break
            who = s.actor
            a = pols[who.team].act(s, who)
            cur = key
            if who.team == s.teams[0]:
                kinds.append(a.kind)
                out["actions"] += 1
            b.step(a, check=False)
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    if argv[:1] == ["count"]:   # count RULESET POLICY FIGHTS
        print(count(argv[1], argv[2], int(argv[3])))
        return 0
    from experiments.tiebreak import evaluate_with
    return evaluate_with(_SITE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
