"""The acting figure's action economy as the env observes it (`MetalfaceRuleset.economy_table`):
one row per number `economy()` returns, in order, with its meaning, scaling and range
(docs/observations.md is rendered from it). "Its weapon" is its first ranged weapon."""

from __future__ import annotations

from rules.features import Feature, count, flag, metres, share

ECONOMY = (
    Feature("half_turns_used", "half turns spent this turn (moving and acting)", "count", 0.0, 2.0),
    Feature("half_turns_left", "half turns left this turn", "count", 0.0, 2.0),
    Feature("actions_left", "the same as `half_turns_left` (the name every ruleset gives)", "count", 0.0, 2.0),
    metres("move_m_used", "metres moved this turn (turning and changing posture included)"),
    metres("move_m_left", "metres it may still move this turn"),
    metres("walk_m", "metres it walks in a half turn"),
    metres("run_m", "metres it runs in a turn (twice `walk_m`)"),
    flag("can_run", "1 while no half turn is spent and it stands"),
    flag("ran", "1 when the metres moved this turn took both half turns"),
    Feature("facing", "the way it faces, in eighths of a turn clockwise from north (0 north, 2 east, 4 south, "
            "6 west)", "eighths", 0.0, 7.0),
    Feature("facing_x", "the east part of the facing (sine)", "unit vector", -1.0, 1.0),
    Feature("facing_y", "the south part of the facing (minus cosine; y grows southwards)", "unit vector", -1.0, 1.0),
    Feature("posture", "its posture, by its index in the data's `postures` (0 stand, 1 kneel, 2 sit, 3 lie)",
            "index", 0.0, 3.0),
    flag("standing", "1 while it stands"),
    Feature("moved_this_round", "its movement status of its latest turn (0 stationary, 1 walking, 2 running, "
            "3 flying), which a targeting roll reads", "code", 0.0, 3.0),
    flag("flying", "1 when the figure flies"),
    flag("device_used", "1 after it activated a charged device (or began charging a weapon) this turn"),
    flag("can_delay", "1 while it may choose to act later in the round (the round's first figure, before it "
         "acts)"),
    count("charges", "rounds or charged shots in its weapon (0 without one)"),
    share("ammo_frac", "its weapon's load (1 without one)", "rounds / capacity"),
    count("spare", "spare clips, rounds or power cells for its weapon"),
    flag("jammed", "1 while its weapon is jammed"),
    flag("packed", "1 while its weapon is packed away"),
    flag("charging", "1 while its beam weapon is charging"),
    Feature("shield", "its shield: 0 off, 0.5 switching on (pending), 1 on", "code"),
    Feature("status_level", "its Status level (0 perfect, 1 weakening, 2 suffering, 3 critical, 4 non-responsive)",
            "code", 0.0, 4.0),
    share("status_frac", "Status left", "remaining / maximum Status"),
    Feature("heal_rate_turn", "the fastest repair it could give a damaged figure of its team, in Status points "
            "per combat turn (0 when none is damaged)", "points per turn", 0.0, None),
)
