"""seed 002, multiple actions: the die ladder of one turn.

"egy cselekvés - az első - levonások nélkül végrehajtható; a második cselekvést -1
kockafokozattal kevesebbel dobod ... Ha a kockadobás 1d2 alá csökkenne, akkor azt a
cselekvést már nem próbálhatod meg." The first action is unpenalised, each further one a
step lower; an action whose die would fall below d2 cannot be tried. The worked example
(melee d8: d8, d6, d4) steps the skill die. Every other step modifier moves the same die
(data.yaml assumption multiple_actions).
"""

from __future__ import annotations

from rules.dice import D0, Step
from rules.state import Combatant


def step_pool(first: Step, second: Step, steps: int) -> tuple[Step, Step] | None:
    """(first, second) with `steps` on the action die - the second die, or the first when the
    second is d0 - or None when that die would fall below d2."""
    if second:
        n = second.index + steps
        return None if n < 1 else (first, Step(n))
    n = first.index + steps
    return None if n < 1 else (Step(n), D0)


def ladder_pool(c: Combatant, attr_name: str, skill: Step, steps: int, attr_steps: int = 0
                ) -> tuple[Step, Step] | None:
    """Attribute and skill dice for an action with `steps` (ladder and modifiers), or None.

    `attr_steps` (wounds, armour) move the attribute die and never take it below d2."""
    attr = c.stats["attributes"][attr_name]
    attr = Step(max(1, attr.index + attr_steps))
    return step_pool(attr, skill, steps)


__all__ = ["step_pool", "ladder_pool"]
