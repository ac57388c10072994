"""The training configuration: a typed dataclass, loadable from YAML, with clear errors."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rules.errors import ScenarioError


@dataclass
class PPOConfig:
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: float = 3e-4
    n_steps: int = 256          #: rollout length per env
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


@dataclass
class PretrainConfig:
    """Behaviour-cloning warm start (training/pretrain.py); `samples: 0` skips it."""

    samples: int = 0            #: teacher decisions to record (whole episodes, at least this many)
    teacher: str = "tactical"   #: the scripted policy to imitate
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    workers: int = 2            #: processes collecting demonstrations
    #: DAgger rounds after the first fit: the clone plays, the teacher labels the states it reaches,
    #: and the clone is refitted on every round's demonstrations together
    dagger_rounds: int = 0
    dagger_samples: int = 0     #: decisions a round (0: the same as `samples`)
    dagger_teacher_share: float = 0.0  #: chance that the teacher, not the clone, plays a decision
    dagger_epochs: int = 0      #: epochs of each refit over all the demonstrations so far (0: `epochs`)
    #: weight of a decision where the teacher overruled the env's advisor (`advice`), against 1 for
    #: the others: a teacher that mostly agrees with its advisor otherwise teaches only the advisor
    overrule_weight: float = 1.0
    #: share of the fights held out of the fit: each epoch reports the clone's agreement on them
    #: (pretrain.json), which tells learning from memorising
    holdout: float = 0.0
    #: add the three mirror images of every fitted decision (training/pretrain.py `mirrored`)
    mirror: bool = False
    #: a `demos.npz` saved by an earlier run (its path, from where `tactica train` runs), fitted
    #: instead of collecting anew; it must come from the same ruleset, map size, slots and advice
    demos: str = ""
    #: soft targets: where the teacher weighed several actions (a planner's rollout values), pull the
    #: policy towards softmax(values / value_temperature) with this weight (0: the pick alone)
    value_weight: float = 0.0
    value_temperature: float = 0.05


@dataclass
class ExpertConfig:
    """Rollout policy iteration after the warm start (training/expert.py); `iterations: 0` skips it."""

    iterations: int = 0         #: rounds of (the network plays, rollouts label, the network is refitted)
    states: int = 1000          #: decisions of the network's own play examined a round
    top_k: int = 4              #: candidates: the network's most likely actions at a decision
    rollouts: int = 12          #: paired rollouts of every candidate (the same dice seeds for each)
    horizon: int = 1            #: rounds a rollout plays on after the candidate before it is scored
    #: a rollout's score: `position_weight` x the planner's estimate of where it ends
    #: (`agents.planner.evaluate`: health and figures standing, both sides alike, +-0.5 for a fight
    #: decided) plus `reward_weight` x the env's rewards summed over it (the run's `reward`: damage
    #: shaping, a win, a loss, a draw at the round limit), so the labels can weigh what training pays for
    position_weight: float = 1.0
    reward_weight: float = 0.0
    #: a decision is kept when its best candidate beats another by more than `z` standard errors of
    #: their paired differences (the labels the dice cannot explain)
    z: float = 2.0
    #: rollouts of a second, independent test of every decision whose label overrules the network's
    #: pick (0: none). An overrule is kept only where these fresh dice find the same best candidate
    #: beating the pick by more than `z` standard errors again, and its soft targets are these
    #: rollouts' means, which the first test's selection has not inflated. (At 12 rollouts and `z` 2 a
    #: comparison of two equal candidates passes about one time in 14. In cortex_hu 42 of 86 overrules
    #: were confirmed at 24, and the confirmed ones did not move the network: docs/results.md,
    #: cortex_hu, Does the refit listen to the rollouts?)
    confirm: int = 0
    value_weight: float = 1.0   #: weight of the soft targets softmax(values / temperature)
    temperature: float = 0.05
    epochs: int = 4             #: epochs of each refit over every round's kept decisions
    batch_size: int = 128
    learning_rate: float = 3e-4
    workers: int = 2            #: processes labelling decisions
    mirror: bool = True         #: fit the three mirror images of each kept decision too
    explore: float = 0.0        #: chance the network plays a sampled action, not its most likely one
    #: also roll out the env's advisor's pick where it is not among the network's `top_k` (ending the
    #: turn included), so each of the network's departures from its advisor meets the advisor's
    #: choice on paired dice, as the planner weighs its guide's pick. In cortex the advisor's pick is
    #: no candidate at 20% of the network's decisions, nearly always to end the turn where the
    #: network acts (training/expert.py `candidates`; docs/results.md)
    advisor_candidate: bool = False
    #: who plays the agent's side in the rollouts after the candidate: `network` (its most likely
    #: action) or `advisor` (the env's advisor's pick, the advice's row 0: `tactical` or `bold`, the
    #: model of play inside `planner`'s or `planner-bold`'s rollouts, so the labels say what that
    #: search would; the network where the advisor has no pick, as at the rules' questions)
    rollout_player: str = "network"
    #: examine only the decisions where the network's two most likely legal actions are less than this
    #: far apart in probability (its close calls, where `selective` searches; 0: every decision), so a
    #: round's rollouts are spent where the network hesitates
    close_calls: float = 0.0
    #: also fit the warm start's demonstrations (the run's demos.npz) in every refit, so the network
    #: keeps its teacher's play where the rollouts have no say (a refit on the few kept decisions
    #: alone moves it everywhere)
    anchor: bool = False
    #: with `anchor`: fit the warm start's decisions towards the network's whole distribution there as
    #: it was before the first refit (its probabilities as soft targets, weighed `value_weight`), not
    #: towards its picks. A one-hot target sharpens the network and flips its close calls: a refit
    #: anchored on picks kept 78% of cybergeneration's network's departures from its advisor
    #: (docs/results.md, cybergeneration, The anchor that moved the network)
    anchor_soft: bool = False
    #: fit the kept decisions by their soft targets alone, softmax(values / temperature) over the
    #: candidates, without the label's cross-entropy: each decision pulls the network as far as its
    #: rollout values say, not all the way to the best candidate. With `z: 0` every decision the
    #: dice weighed is kept at its raw means (a value-aware distillation: no significance filter,
    #: the noise averaged over many decisions instead of thresholded at each)
    soft_labels: bool = False
    #: weight of a kept decision that overrules the env's advisor, against 1 for the others (as
    #: `pretrain.overrule_weight`): with `anchor`, the overrules are a few among many
    overrule_weight: float = 1.0
    eval_episodes: int = 100    #: fights against `eval_opponents` after each round (held-out maps)


@dataclass
class Stage:
    """One curriculum stage: until `until_steps` total steps, train against these opponents."""

    until_steps: int
    opponents: list[str] = field(default_factory=lambda: ["aggressive"])
    scenarios: list[str] | None = None  #: overrides the run's scenarios in this stage


@dataclass
class TrainConfig:
    """Everything a training run needs; `training/configs/<ruleset>.yaml` holds one per ruleset."""

    ruleset: str = "cortex"
    #: bundled scenario names or files; "generated" draws a new procedural map each episode
    scenarios: list[str] = field(default_factory=lambda: ["generated"])
    #: generator settings for "generated" (size, team_size, mirrored ...)
    generator: dict[str, Any] = field(default_factory=lambda: {"size": [14, 14], "team_size": 2, "mirrored": True})
    map_size: list[int] = field(default_factory=lambda: [14, 14])   #: [H, W] every map is padded to
    max_enemies: int = 4
    max_allies: int = 3
    #: scripted opponents by name, and "self" for past checkpoints of this run (self-play)
    opponents: list[str] = field(default_factory=lambda: ["aggressive", "tactical"])
    curriculum: list[Stage] = field(default_factory=list)
    #: SkirmishEnv reward terms; damage_taken shaping can pay for passivity where fights are
    #: often drawn (envs/skirmish.py, Rewards; docs/results.md, cybergeneration)
    reward: dict[str, float] = field(default_factory=lambda: {"damage_dealt": 0.2, "damage_taken": 0.2})
    n_envs: int = 4
    total_steps: int = 200_000
    #: wall-clock budget: learning stops at the first step past it, checkpoint and policy
    #: written (0: none). The step count it reaches depends on the machine.
    time_limit_minutes: float = 0.0
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    #: a policy `.npz` exported by `tactica train` (its path, from where `tactica train` runs) that a
    #: new run starts from instead of fresh weights: its actor is loaded, the value head starts fresh.
    #: It must have this config's ruleset, map size, slots, advice and architecture. For rollout
    #: policy iteration over a shipped network (`expert`), or PPO that goes on from one ("": none)
    init_from: str = ""
    #: "cnn" (convolutions over grid + MLP), "mlp" (everything flattened) or "spatial" (per-cell
    #: convolutional features; the move actions are scored by a convolutional head over them)
    features: str = "cnn"
    #: the agent's team: "first" (the scenario's first team), or "random" (drawn each episode:
    #: on a mirrored map the agent learns both sides, as `tactica evaluate` plays it)
    side: str = "first"
    #: a scripted advisor (`tactical` or `bold`) whose ranking of every decision the observation carries
    #: (envs/advice.py) and the policy weighs into its logits; needs `features: spatial`
    advice: str | None = None
    #: the starting weights of the advice rows (the advisor's pick, its relative scores) in the
    #: logits: large follows the advisor from the start, small explores around it
    advice_gain: list[float] = field(default_factory=lambda: [5.0, 2.0])
    #: choose only among the actions the advisor ranked (its candidates): exploration stays
    #: among sensible options
    advice_only: bool = False
    #: also observe the parts of the advisor's scores (`advice_parts`: hit odds, expected damage,
    #: exposure per ranked action; envs/advice.py), each row with its own learnt gain in the
    #: logits, starting at 0; needs `advice`
    advice_parts: bool = False
    #: observe the rounds left before the round limit (envs/encoding.py, `CLOCK_SLOT`); a draw at
    #: the limit then ends the episode (terminated, not truncated: no bootstrapping past it)
    clock: bool = False
    #: observe which figures are yet to take their turn this round (`to_act`, one flag per unit
    #: slot; envs/encoding.py `Layout.to_act`): an enemy that shoots before the agent's next turn
    #: told from one that has shot
    turn_order: bool = False
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    seed: int = 0
    eval_interval: int = 20_000  #: steps between evaluations, and one of the final policy (0: none)
    eval_episodes: int = 40
    eval_opponents: list[str] = field(default_factory=lambda: ["tactical"])
    checkpoint_interval: int = 20_000
    out_dir: str = "runs"
    run_name: str | None = None
    vec_env: str = "subproc"     #: "subproc" or "dummy"
    #: torch threads of the learner in PPO's update phase (and the behaviour-cloning fit); the
    #: rollouts always use one (the env processes have the cores then). The same value gives the
    #: same run; another value may change its floats. More than 1 pays only where the update has
    #: idle cores: on a busy machine OpenMP's spinning threads make it slower (docs/benchmarks.md;
    #: OMP_WAIT_POLICY=PASSIVE in the environment softens that)
    torch_threads: int = 1

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def agent_team(self) -> str | None:
        """`SkirmishEnv`'s `agent_team` for `side`: None (the first team) or "random"."""
        return "random" if self.side == "random" else None


#: the `features` architectures (training/features.py)
FEATURE_MODES = ("cnn", "mlp", "spatial")
#: fields that take one of a few names
_CHOICES = {(TrainConfig, "features"): FEATURE_MODES, (TrainConfig, "side"): ("first", "random"),
            (TrainConfig, "advice"): (None, "tactical", "bold"), (ExpertConfig, "rollout_player"): ("network", "advisor")}
#: numeric fields with bounds (inclusive)
_RANGES = {(PretrainConfig, "dagger_rounds"): (0, None), (PretrainConfig, "dagger_samples"): (0, None),
           (PretrainConfig, "dagger_teacher_share"): (0.0, 1.0), (PretrainConfig, "samples"): (0, None),
           (PretrainConfig, "overrule_weight"): (1.0, None), (PretrainConfig, "holdout"): (0.0, 0.9),
           (PretrainConfig, "value_weight"): (0.0, None), (PretrainConfig, "value_temperature"): (1e-4, None),
           (PretrainConfig, "dagger_epochs"): (0, None), (TrainConfig, "torch_threads"): (1, 64),
           (ExpertConfig, "iterations"): (0, None), (ExpertConfig, "states"): (1, None),
           (ExpertConfig, "top_k"): (2, 16), (ExpertConfig, "rollouts"): (2, 256), (ExpertConfig, "horizon"): (1, 50),
           (ExpertConfig, "confirm"): (0, 256), (ExpertConfig, "close_calls"): (0.0, 1.0),
           (ExpertConfig, "position_weight"): (0.0, None), (ExpertConfig, "reward_weight"): (0.0, None),
           (ExpertConfig, "z"): (0.0, None), (ExpertConfig, "value_weight"): (0.0, None),
           (ExpertConfig, "temperature"): (1e-4, None), (ExpertConfig, "epochs"): (1, None),
           (ExpertConfig, "batch_size"): (1, None), (ExpertConfig, "learning_rate"): (0.0, None),
           (ExpertConfig, "workers"): (1, 64), (ExpertConfig, "explore"): (0.0, 1.0),
           (ExpertConfig, "eval_episodes"): (0, None), (ExpertConfig, "overrule_weight"): (1.0, None)}


def _build(cls, data: Mapping[str, Any], source: str, prefix: str):
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{type(data).__name__}", source=source, field=prefix or "(top level)",
                            expected="a mapping")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(data) - set(fields)
    if unknown:
        raise ScenarioError(f"unknown field(s) {sorted(unknown)}", source=source, field=prefix or "(top level)",
                            expected=", ".join(fields))
    kwargs = {}
    for k, v in data.items():
        f = fields[k]
        path = f"{prefix}.{k}" if prefix else k
        if k == "ppo":
            kwargs[k] = _build(PPOConfig, v, source, path)
        elif k == "pretrain":
            kwargs[k] = _build(PretrainConfig, v, source, path)
        elif k == "expert":
            kwargs[k] = _build(ExpertConfig, v, source, path)
        elif k == "curriculum":
            if not isinstance(v, list):
                raise ScenarioError("not a list", source=source, field=path, expected="a list of stages")
            kwargs[k] = [_build(Stage, s, source, f"{path}[{i}]") for i, s in enumerate(v)]
        else:
            default = _default_of(f)
            if isinstance(default, bool) and not isinstance(v, bool):
                raise ScenarioError(f"{v!r}", source=source, field=path, expected="true or false")
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ScenarioError(f"{v!r}", source=source, field=path, expected="a number")
                v = type(default)(v) if not (isinstance(default, int) and isinstance(v, float) and v != int(v)) else v
            if isinstance(default, str) and not isinstance(v, str):
                raise ScenarioError(f"{v!r}", source=source, field=path, expected="a string")
            if isinstance(default, list) and not isinstance(v, list):
                raise ScenarioError(f"{v!r}", source=source, field=path, expected="a list")
            choices = _CHOICES.get((cls, k))
            if choices and v not in choices:
                names = ["null" if c is None else str(c) for c in choices]
                raise ScenarioError(f"{v!r}", source=source, field=path,
                                    expected=f"{', '.join(names[:-1])} or {names[-1]}")
            lo, hi = _RANGES.get((cls, k), (None, None))
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                raise ScenarioError(f"{v!r}", source=source, field=path,
                                    expected=f"a number from {lo}" + (f" to {hi}" if hi is not None else " up"))
            kwargs[k] = v
    missing = [f.name for f in fields.values() if _required(f) and f.name not in kwargs]
    if missing:
        raise ScenarioError(f"missing field(s) {missing}", source=source, field=prefix or "(top level)",
                            expected="a value for " + ", ".join(missing))
    gain = kwargs.get("advice_gain", (0.0, 0.0)) if cls is TrainConfig else (0.0, 0.0)
    if len(gain) != 2 or not all(isinstance(g, (int, float)) and not isinstance(g, bool) for g in gain):
        raise ScenarioError(f"{kwargs['advice_gain']!r}", source=source, field="advice_gain",
                            expected="two numbers: the weights of the advisor's pick and of its scores")
    if cls is TrainConfig and kwargs.get("advice_parts") and kwargs.get("advice") is None:
        raise ScenarioError("advice_parts without an advisor", source=source, field="advice_parts",
                            expected="advice: tactical or bold with it (or advice_parts: false)")
    if cls is TrainConfig and kwargs.get("advice") is None and getattr(kwargs.get("expert"), "advisor_candidate", False):
        raise ScenarioError("expert.advisor_candidate without an advisor", source=source,
                            field="expert.advisor_candidate",
                            expected="advice: tactical or bold with it (or advisor_candidate: false)")
    if cls is TrainConfig and kwargs.get("advice") is None and getattr(kwargs.get("expert"), "rollout_player", "") == "advisor":
        raise ScenarioError("expert.rollout_player advisor without an advisor", source=source,
                            field="expert.rollout_player",
                            expected="advice: tactical or bold with it (or rollout_player: network)")
    if cls is TrainConfig and kwargs.get("advice") is not None and kwargs.get("features", "cnn") != "spatial":
        raise ScenarioError(f"advice {kwargs['advice']!r} with {kwargs.get('features', 'cnn')} features",
                            source=source, field="features", expected="spatial (the policy that weighs the advice)")
    if cls is ExpertConfig and kwargs.get("soft_labels") and not kwargs.get("value_weight", 1.0) > 0:
        raise ScenarioError("soft_labels without the soft targets' weight", source=source,
                            field=f"{prefix}.soft_labels", expected="value_weight above 0, or soft_labels: false")
    if cls is ExpertConfig and kwargs.get("anchor_soft") and not (kwargs.get("anchor") and kwargs.get("value_weight", 1.0) > 0):
        raise ScenarioError("anchor_soft without the anchor or its weight", source=source, field=f"{prefix}.anchor_soft",
                            expected="anchor: true and value_weight above 0 with it (the soft targets' weight), "
                            "or anchor_soft: false")
    if cls is ExpertConfig and kwargs.get("confirm") == 1:
        raise ScenarioError("confirm 1: one rollout cannot confirm an overrule", source=source,
                            field=f"{prefix}.confirm", expected="0 (no second test) or 2 or more rollouts")
    if cls is ExpertConfig and kwargs.get("position_weight", 1.0) == 0 and kwargs.get("reward_weight", 0.0) == 0:
        raise ScenarioError("every rollout would score 0", source=source, field=f"{prefix}.position_weight",
                            expected="position_weight or reward_weight above 0")
    return cls(**kwargs)


def _required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _default_of(f: dataclasses.Field) -> Any:
    """The field's default, or a value of its declared type for a required field (for checks)."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return {"int": 0, "float": 0.0, "bool": False, "str": ""}.get(str(f.type), None)


def load_config(path: str | Path | Mapping[str, Any]) -> TrainConfig:
    """A TrainConfig from a YAML file (or a mapping); errors name the file and the field."""
    if isinstance(path, Mapping):
        return _build(TrainConfig, path, "<config>", "")
    from rules.scenario import read_document
    doc = read_document(path)
    return _build(TrainConfig, doc, str(path), "")
