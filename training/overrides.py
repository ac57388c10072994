"""`tactica train --set key=value`: any config field from the command line.

A key is a field of `TrainConfig` (training/config.py), dotted into a section or a mapping
(`ppo.learning_rate`, `pretrain.samples`, `reward.draw`, `generator.team_size`). The value
is read as YAML (`1e-4`, `true`, `[tactical, aggressive]`, `null`, `{samples: 2000}`; a
text field keeps the text as typed) and the whole config is then checked by the code that
checks a config file, so the errors are the same, named `--set` and the key:

    --set: ppo.learning_rate: 'fast' (expected a number)
    --set: ppo.learnin_rate: unknown field 'learnin_rate'; did you mean 'learning_rate'? (...)

A whole section given as a mapping updates it (`--set pretrain={samples: 2000, epochs: 2}`);
a list (`curriculum`, `opponents`) is given whole. On `--resume` the checkpoint fixes the
model, the envs and what their resets draw, so only `RESUMABLE` fields may change.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any, Iterable, Mapping

import yaml

from rules.errors import TacticaError
from rules.names import check_known, did_you_mean, one_of
from training.config import ExpertConfig, PPOConfig, PretrainConfig, TrainConfig, _build

SOURCE = "--set"


class _Loader(yaml.SafeLoader):
    """YAML with YAML 1.2's floats: `1e-4` is a number (YAML 1.1 reads it as text)."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(
    r"^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]+|[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)$"), list("-+0123456789."))
#: the fields `--set` may change on `--resume`: how long the run goes on and how it is watched,
#: and which run it is (everything else is fixed by the checkpoint or by what the resets draw)
RESUMABLE = ("total_steps", "time_limit_minutes", "eval_interval", "eval_episodes", "eval_opponents",
             "checkpoint_interval", "vec_env", "torch_threads", "run_name", "out_dir",
             "expert")   # rollout policy iteration's later rounds (more of them, more rollouts)
#: dataclass sections (a dotted key names one of their fields)
_SECTIONS = {"ppo": PPOConfig, "pretrain": PretrainConfig, "expert": ExpertConfig}
#: free mappings (a dotted key names one entry)
_MAPPINGS = ("reward", "generator")


def parse_set(item: str) -> tuple[str, str]:
    """`key=value` -> (key, value text); anything else is a `TacticaError` naming `--set`."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise TacticaError(f"{item!r}", source=SOURCE, field=key or "(key)",
                           expected="key=value, e.g. ppo.learning_rate=1e-4")
    return key, value


def _mapping_keys(name: str) -> tuple[str, ...] | None:
    """The entries `reward` / `generator` know (None: any)."""
    if name == "reward":
        from envs.skirmish import DEFAULT_REWARD
        return tuple(DEFAULT_REWARD)
    if name == "generator":
        from envs.generators import generate_scenario
        params = [p for p in inspect.signature(generate_scenario).parameters if p not in ("seed", "height", "width")]
        return ("size", "held_out", *params)
    return None


def _check_key(key: str) -> dataclasses.Field | None:
    """Refuse a key that names no config field; the field (or None within a mapping) it sets."""
    parts = key.split(".")
    top = {f.name: f for f in dataclasses.fields(TrainConfig)}
    check_known(parts[0], top, SOURCE, key, "config field")
    if len(parts) == 1:
        return top[parts[0]]
    if len(parts) == 2 and parts[0] in _SECTIONS:
        sub = {f.name: f for f in dataclasses.fields(_SECTIONS[parts[0]])}
        check_known(parts[1], sub, SOURCE, key, f"{parts[0]} field")
        return sub[parts[1]]
    if len(parts) == 2 and parts[0] in _MAPPINGS:
        known = _mapping_keys(parts[0])
        if known is not None:
            check_known(parts[1], known, SOURCE, key, f"{parts[0]} entry")
        return None
    inner = ", ".join(f"{s}.FIELD" for s in (*_SECTIONS, *_MAPPINGS))
    raise TacticaError(f"{key!r} names no field{did_you_mean(parts[0], top)}", source=SOURCE, field=key,
                       expected=f"a config field ({one_of(top)}) or {inner}")


def _value(text: str, f: dataclasses.Field | None, key: str) -> Any:
    """The YAML value of `text`; a text field keeps what was typed (`run_name=2024` is '2024')."""
    try:
        v = yaml.load(text, Loader=_Loader) if text.strip() else None
    except yaml.YAMLError as e:
        raise TacticaError(f"{text!r} is not a YAML value (YAML: {getattr(e, 'problem', None) or 'syntax error'})",
                           source=SOURCE, field=key, expected="a number, true/false, text, [a list] or {a: mapping}") \
            from None
    if f is not None and str(f.type) in ("str", "str | None") and v is not None and not isinstance(v, (str, list, dict)):
        return text.strip()
    return v


def apply_sets(cfg: TrainConfig, items: Iterable[str], direct: Mapping[str, Any] | None = None,
               resume: bool = False) -> TrainConfig:
    """`cfg` with the `--set` `items` (`key=value`) and then the `direct` values (the shorthand
    options, by field name) applied, checked as a config file is; on `resume`, a field outside
    `RESUMABLE` is refused."""
    doc = cfg.to_dict()
    pairs = [parse_set(i) for i in items]
    changes = [(k, _value(t, _check_key(k), k)) for k, t in pairs] + list((direct or {}).items())
    for key, v in changes:
        parts = key.split(".")
        if resume and parts[0] not in RESUMABLE:
            raise TacticaError(f"{key} is fixed by the run's checkpoint", source=SOURCE, field=key,
                               expected=f"on --resume only {', '.join(RESUMABLE)}")
        if len(parts) == 2:
            doc[parts[0]] = {**(doc[parts[0]] or {}), parts[1]: v}
        elif parts[0] in _SECTIONS and isinstance(v, Mapping):
            for k in v:
                _check_key(f"{parts[0]}.{k}")
            doc[parts[0]] = {**doc[parts[0]], **v}
        else:
            doc[parts[0]] = v
    return _build(TrainConfig, doc, SOURCE, "")


def differing(a: TrainConfig, b: TrainConfig) -> list[str]:
    """The dotted fields whose values differ between two configs."""
    da, db = a.to_dict(), b.to_dict()
    out = []
    for k in da:
        if k in _SECTIONS:
            out += [f"{k}.{s}" for s in da[k] if da[k][s] != db[k][s]]
        elif da[k] != db[k]:
            out.append(k)
    return out
