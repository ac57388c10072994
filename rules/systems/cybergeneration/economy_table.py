"""The acting figure's action economy as the env observes it (`CybergenerationRuleset.economy_table`):
one row per number `economy()` returns, in order, with its meaning, scaling and range
(docs/observations.md is rendered from it)."""

from __future__ import annotations

from rules.features import Feature, count, flag, metres, share

ECONOMY = (
    flag("move_used", "1 after it moved this turn"),
    flag("action_used", "1 once its actions this turn are spent"),
    Feature("actions_left", "actions left this turn (1, or 2 in two-action mode)", "count", 0.0, 2.0),
    metres("walk_left_m", "metres left at walking pace"),
    metres("move_left_m", "metres it may still move this turn (running included)"),
    flag("can_run", "1 while it may run (or run on)"),
    flag("ran", "1 after it ran this turn"),
    flag("two_action_mode", "1 when it takes two actions this turn (each skill roll at -5)"),
    flag("held_action", "1 while it holds an action for a trigger"),
    flag("held_trigger_move", "1 while the held action waits for an enemy's move"),
    flag("held_trigger_attack", "1 while the held action waits for an enemy's attack"),
    flag("held_trigger_draw", "1 while the held action waits for an enemy drawing a weapon"),
    count("delays_left", "delays left this round (data `max_delays_per_round` less those taken)"),
    flag("resumed", "1 when this turn resumes a delayed one"),
    flag("steadied", "1 after it steadied a weapon this turn"),
    count("aiming_bonus", "the aiming bonus on its next attack roll"),
    count("dodging", "its dodge bonus against attacks until its next turn (0 when not dodging)"),
    Feature("stun_modifier", "the modifier on its stun saves from stun results; it recovers by 1 towards 0 each round", "roll modifier",
            None, None),
    Feature("wounds_left", "Wounds left (BODY less the Wounds taken)", "Wounds", None, None),
    flag("impaired", "1 while impaired"),
    flag("prone", "1 while prone"),
    flag("knocked", "1 while knocked down"),
    flag("grappling", "1 while it is in a grapple"),
    flag("holding", "1 while it holds another figure"),
    flag("held", "1 while another figure holds it"),
    flag("suppressed", "1 while it stands in a suppression zone"),
    flag("suppression_passed", "1 after it passed its COOL check under suppression this turn"),
    flag("jammed", "1 while a weapon of it is jammed"),
    flag("weapon_drawn", "1 while it holds a weapon drawn"),
    share("ammo_frac", "rounds left in its main gun's magazine (the genius gun's charge; 1 without one)",
          "rounds / magazine"),
    flag("woke", "1 when it woke up this turn (it may move but not act)"),
)
