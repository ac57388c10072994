"""A `cortex` figure's starting conditions and state from its scenario entry (issue #32).

```yaml
- {id: mal, template: gunslinger, at: [1, 1],
   conditions: [prone, {name: impaired, until: endurance}],
   state: {wound: 4, stun: 2, ammo: {revolver: 1}, stance: dodge, grappling: jayne}}
```

Conditions: `prone`, `knocked` (prone and off balance: -1 step on the next combat action
after standing), `unconscious`, `dying`, `dead`, and the called-shot afflictions
`arm_lost`, `leg_lost`, `hand_lost`, `knocked_out`, `incapacitated`, `impaired`,
`crawl_only`, each lasting `until` an Endurance roll, medical treatment or surgery (default
`medical`: the whole fight, assumption medical_treatment). State keys: see `CORTEX_START`.
"""

from __future__ import annotations

from typing import Any

from rules.errors import ScenarioError
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.start import StartSchema, kind, link_grapples, mapping_of

UNTIL = {"until": ("endurance", "medical", "surgery")}
#: affliction condition -> (effect, the conditions it gives) as `called_shot_effect` records them
AFFLICTIONS = {"arm_lost": ("lose_arm", ["arm_lost"]), "leg_lost": ("lose_leg", ["leg_lost"]),
               "hand_lost": ("lose_hand", ["hand_lost"]), "knocked_out": ("knocked_out", ["knocked_out"]),
               "incapacitated": ("incapacitated", ["incapacitated"]), "impaired": ("impaired", ["impaired"]),
               "crawl_only": ("crawl_only", ["crawl_only"])}
STANCES = ("block", "dodge", "all_out_block", "all_out_dodge")

CORTEX_START = StartSchema(
    conditions={"prone": {}, "knocked": {}, "unconscious": {}, "dying": {}, "dead": {},
                **{name: UNTIL for name in AFFLICTIONS}},
    state={"stun": kind(int, low=0), "wound": kind(int, low=0), "plot_points": kind(int, low=0),
           "ammo": mapping_of(kind(int, low=0)), "uses": mapping_of(kind(int, low=0)),
           "second_winds_used": kind(int, low=0), "reaction_debt": kind(int, low=0),
           "held": kind(str), "stance": kind(choices=STANCES), "attacked_last": kind(bool),
           "grappling": kind(str), "grappled_by": kind(str)})

RES_KEYS = {"stun": "stun", "wound": "wound", "plot_points": "pp", "second_winds_used": "second_winds_used",
            "reaction_debt": "reaction_debt", "held": "held", "attacked_last": "attacked_last",
            "grappling": "grappling", "grappled_by": "grappled_by"}


def apply_start(rs: Any, c: Combatant, conds: list[tuple[str, dict]], st: dict[str, Any], source: str | None,
                field: str) -> None:
    """Lay the checked starting conditions and state on a new figure."""
    names = {w.name: w for w in c.weapons.values()}
    for key, what in (("ammo", "a weapon with a magazine"), ("uses", "an explosive")):
        for wn, n in (st.get(key) or {}).items():
            w = names.get(wn)
            ok = w is not None and (w.magazine if key == "ammo" else w.kind == "explosive")
            if not ok or (key == "ammo" and n > w.magazine):
                raise ScenarioError(f"{key} {wn}: {n!r}", source=source, field=f"{field}.state.{key}.{wn}",
                                    expected=f"{what} of this figure" + (", at most its magazine" if ok else "")
                                    + ": " + ", ".join(sorted(c.res[key])))
            c.res[key][wn] = n
    if "held" in st and st["held"] not in names:
        raise ScenarioError(f"held {st['held']!r}", source=source, field=f"{field}.state.held",
                            expected="one of the figure's weapons: " + ", ".join(sorted(names)))
    for key, res_key in RES_KEYS.items():
        if key in st:
            c.res[res_key] = st[key]
    if "stance" in st:
        all_out = st["stance"].startswith("all_out_")
        c.res["stance"] = {"mode": st["stance"].removeprefix("all_out_"), "steps": 2 if all_out else 0,
                           "rolls": 0, "all_out": all_out}
    for name, opts in conds:
        if name in AFFLICTIONS:
            effect, given = AFFLICTIONS[name]
            c.res["afflictions"].append({"area": "start", "effect": effect, "until": opts.get("until", "medical"),
                                         "conds": list(given), "blunt": False})
        elif name == "knocked":
            c.conditions |= {"prone", "knocked"}
        else:
            c.conditions.add(name)
    rs.sync_afflictions(c)


def link_start(state: BattleState) -> None:
    """Tie starting grapples together (`state.grappling` / `grappled_by` name the partner)."""
    link_grapples(state)


__all__ = ["CORTEX_START", "apply_start", "link_start"]
