"""The names in an encounter's `tuning:` block, checked before its values (issue #35).

`check_knob_names` runs first in `evaluation.tuning.parse_knobs`, so both `tactica validate`
and `tactica tune` refuse an unknown tuning field, knob kind or knob field with the closest
known one (rules/names.py), and check each knob against the model of its kind, so that an
error names `tuning.knobs[i].FIELD` (pydantic's union of kinds would put the kind in the path).
"""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import ValidationError

from evaluation.knobs import CountKnob, CoverKnob, DistanceKnob, StepKnob, WeaponKnob
from rules.errors import ScenarioError
from rules.names import check_keys, check_known, one_of
from rules.scenario import pydantic_error

#: knob kind -> its model (the fields a knob of that kind may have)
KNOB_KINDS: dict[str, type] = {"count": CountKnob, "trait_step": StepKnob, "weapon": WeaponKnob,
                             "distance": DistanceKnob, "cover": CoverKnob}


def check_knob_names(tuning: Mapping[str, Any], source: str | None) -> None:
    """The `tuning` block's keys, each knob's `kind` and each knob's fields are names the tuner
    knows (a typo gets the closest one: rules/names.py), and each knob's values fit its kind
    (an error names `tuning.knobs[i].FIELD`)."""
    check_keys(tuning, ("knobs",), source, "tuning", "tuning field")
    knobs = tuning.get("knobs")
    for i, k in enumerate(knobs if isinstance(knobs, list) else ()):
        f = f"tuning.knobs[{i}]"
        if not isinstance(k, Mapping):
            continue
        if "kind" not in k:
            raise ScenarioError("a knob without a kind", source=source, field=f"{f}.kind",
                                expected=one_of(KNOB_KINDS))
        check_known(k["kind"], KNOB_KINDS, source, f"{f}.kind", "knob kind")
        model = KNOB_KINDS[k["kind"]]
        check_keys(k, tuple(model.model_fields), source, f, f"{k['kind']} knob field")
        try:
            model.model_validate(dict(k))
        except ValidationError as e:
            raise pydantic_error(e, source).at(field_prefix=f) from None
