"""The acting figure's action economy as the env observes it (`CortexHuRuleset.economy_table`):
one row per number `economy()` returns, in order, with its meaning, scaling and range
(docs/observations.md is rendered from it)."""

from __future__ import annotations

from rules.features import Feature, count, flag, metres, share

ECONOMY = (
    count("actions_used", "actions taken this turn, reactions carried over included (the action ladder)"),
    Feature("next_action_steps", "the step modifier every action takes now: the ladder (minus the actions "
            "taken), a run's penalty and prone", "die steps", None, None),
    count("actions_left", "actions left this turn (data `max_actions_per_turn` less those taken)"),
    metres("move_used_m", "metres moved this turn"),
    metres("walk_left_m", "metres left at walking pace (0 while prone)"),
    metres("move_left_m", "the longest move still possible this turn"),
    flag("jogged", "1 after the figure jogged or ran this turn"),
    flag("ran", "1 after the figure ran this turn"),
    Feature("run_penalty", "the step penalty a run puts on its following actions (0 or the data's "
            "`run_penalty_steps`)", "die steps", None, 0.0),
    count("prepared_parries", "parries prepared for the round"),
    count("prepared_dodges", "dodges prepared for the round"),
    flag("full_defence", "1 after it chose full defence this turn"),
    flag("all_out_attack", "1 after it chose an all-out attack this turn"),
    flag("carried_over", "1 when reactions taken since its last turn were carried over into this one"),
    count("reaction_debt", "reactions taken out of turn that its next turn carries over"),
    Feature("aim_steps", "the aim bonus built up for its next attack", "die steps", 0.0, 3.0),
    flag("aimed", "1 after it aimed this turn"),
    flag("feint_ready", "1 while an enemy of it, standing, is fooled by a feint (by anyone)"),
    flag("prone", "1 while prone"),
    count("shots_left", "shots left this turn with its first ranged weapon with a magazine (rate of fire "
          "less the shots fired; 0 when it has none)"),
    share("ammo_frac", "rounds left in that weapon's magazine (1 when it has none)", "rounds / magazine"),
    count("plot_points", "Plot Points left"),
    flag("grappled", "1 while another figure grapples it"),
    flag("grappling", "1 while it grapples another figure"),
    flag("surprised", "1 while surprised"),
)
