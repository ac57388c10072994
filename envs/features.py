"""The observation's named numbers, one table per block: grid channels and unit features.

Each row (`rules.features.Feature`) says what the number means, how it is scaled and its
range. `envs.encoding` takes `GRID_CHANNELS`, `UNIT_FEATURES` and `CONDITION_FEATURES` (the
names, in order) from these tables and `envs.observation` its channel and column indices;
docs/observations.md is rendered from them (`python -m envs.describe`). The economy's table
is the ruleset's (`Ruleset.economy_table`). Changing a row's name or order changes the
encoding: raise the env ids' version (docs/observations.md, "Versions").
"""

from __future__ import annotations

from rules.features import Feature, feature_names, flag

#: the (C, H, W) `grid`: one channel per row, over the padded map (cells outside the
#: scenario's map are padding)
GRID = (
    flag("in_map", "1 on a cell of the scenario's map, 0 on padding"),
    flag("impassable", "1 where terrain blocks movement; padding is impassable"),
    flag("blocks_sight", "1 where terrain blocks line of sight"),
    Feature("cover", "the cover level (0 none .. 4 total) the cell's terrain gives a figure behind it",
            "level / 4 (0, 0.25, 0.5, 0.75, 1)"),
    flag("difficult", "1 on difficult terrain"),
    flag("actor", "1 at the acting figure's cell (0 everywhere in a neutral view)"),
    flag("allies", "1 at each other figure of the observing team, down or standing"),
    flag("enemies", "1 at each figure of the other teams, down or standing"),
    Feature("ally_health", "health left of the observing team's figures (the acting one included), at their "
            "cells", "remaining / maximum (`Ruleset.health`)"),
    Feature("enemy_health", "health left of the other teams' figures, at their cells",
            "remaining / maximum (`Ruleset.health`)"),
    flag("prone", "1 at each prone figure's cell"),
    flag("down", "1 at each figure out of the fight (`rules.state.DOWN_CONDITIONS`)"),
    flag("reachable", "1 at each cell the acting figure can move to now (the move block of the action mask)"),
    flag("line_of_sight", "1 at each cell the acting figure can see (0 in a neutral view)"),
    Feature("threat", "how many of the standing enemies can see the cell",
            "count / number of standing enemies (0 when none stands)"),
    flag("objects", "1 where items lie on the ground (scenario `objects`, dropped weapons)"),
)

#: unit row columns before the condition flags; row 0 is the acting figure, then the ally
#: slots, then the enemy slots (an empty slot is all zeros)
UNIT_BASE = (
    flag("present", "1 when the slot holds a figure"),
    flag("is_self", "1 for the acting figure (row 0)"),
    flag("is_ally", "1 for another figure of the observing team"),
    flag("is_enemy", "1 for a figure of another team"),
    Feature("dx", "the figure's column relative to the acting figure's (a neutral view: its column)",
            "cells / padded width W", -1.0, 1.0),
    Feature("dy", "the figure's row relative to the acting figure's (a neutral view: its row)",
            "cells / padded height H", -1.0, 1.0),
    Feature("distance", "straight-line distance to the acting figure (0 in a neutral view)",
            "cells / the padded map's diagonal, at most 1"),
    Feature("health", "health left", "remaining / maximum (`Ruleset.health`)"),
    flag("down", "1 when the figure is out of the fight (`rules.state.DOWN_CONDITIONS`)"),
    Feature("reach", "the longest distance the figure can attack at now (`Ruleset.reach_m`); 0 for a figure "
            "that is down", "metres / (max(H, W) x cell metres), at most 1"),
    Feature("ammo", "ammunition left in the figure's main ranged weapon (`Ruleset.ammo_frac`; 1 when it "
            "needs none); 0 for a figure that is down", "rounds / capacity"),
    flag("in_sight", "1 when the acting figure can see the figure's cell (0 in a neutral view)"),
    Feature("cover_vs_actor", "enemies only: the cover the figure has against the acting figure",
            "level / 4"),
    Feature("actor_cover_vs", "enemies only: the cover the acting figure has against the figure",
            "level / 4"),
)

#: generic conditions (`Combatant.conditions`) the unit rows flag, after `UNIT_BASE`
CONDITIONS = tuple(flag(name, f"1 while the figure has the condition `{name}`") for name in (
    "prone", "grappled", "grappling", "stunned", "impaired", "incapacitated", "unconscious", "dying", "dead",
    "knocked_out", "suppressed", "aiming", "holding_action"))

UNITS = UNIT_BASE + CONDITIONS

GRID_CHANNELS = feature_names(GRID)
CONDITION_FEATURES = feature_names(CONDITIONS)
UNIT_FEATURES = feature_names(UNITS)
