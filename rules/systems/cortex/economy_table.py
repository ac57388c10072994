"""The acting figure's action economy as the env observes it (`CortexRuleset.economy_table`):
one row per number `economy()` returns, in order, with its meaning, scaling and range
(docs/observations.md is rendered from it)."""

from __future__ import annotations

from rules.features import Feature, count, flag, metres, share

ECONOMY = (
    count("actions_used", "actions taken this turn (the action ladder)"),
    Feature("next_action_steps", "the step penalty the next action takes on the action ladder "
            "(minus the actions taken this turn)", "die steps", None, 0.0),
    count("actions_left", "actions left this turn (data `max_actions_per_turn` less those taken)"),
    metres("move_used_m", "metres moved this turn"),
    metres("walk_left_m", "metres left at walking pace (a free move)"),
    metres("move_left_m", "the longest move still possible this turn"),
    flag("can_run", "1 while the figure may still run (no action taken and it did not stand up this turn)"),
    flag("ran", "1 after the figure ran this turn"),
    flag("stance_block", "1 while its defence stance is block"),
    flag("stance_dodge", "1 while its defence stance is dodge"),
    flag("all_out_defence", "1 while its stance is all-out defence"),
    flag("prone", "1 while prone"),
    flag("rise_penalty", "1 while off balance after rising (its next attack takes -1 step)"),
    flag("no_move", "1 when it may not move any more this turn"),
    count("shots_left", "shots left this turn with its first ranged weapon with a magazine (rate of fire "
          "less the shots fired; 0 when it has none)"),
    share("ammo_frac", "rounds left in that weapon's magazine (1 when it has none)", "rounds / magazine"),
    count("plot_points", "Plot Points left"),
    count("pp_bonus_pending", "Plot Points spent on its next roll, not yet rolled"),
    count("second_winds_left", "second winds left"),
    flag("grappled", "1 while another figure grapples it"),
    flag("grappling", "1 while it grapples another figure"),
    Feature("arms_usable", "arms it can use (2 less arms and hands lost to afflictions)", "count", 0.0, 2.0),
    count("reaction_debt", "reactions taken out of turn (dodging explosions) that its next turn starts with "
          "as actions used"),
    flag("impaired", "1 while impaired"),
)
