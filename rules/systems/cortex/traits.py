"""seed 000, Traits (Assets and Complications): data-driven modifiers keyed by roll context.

A figure's traits are `[{name, form, options}]`. `TraitBook.modifiers` adds up every
modifier whose `when` tags are all in the roll's context (the figure's conditions count
as context too) and says what it does to the attribute die, the skill die and bonus dice.
`skill_check` is the general roll of the rules API (social, negotiation, knowledge,
piloting ...) with those modifiers applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.errors import ScenarioError
from rules.names import check_keys, check_known
from rules.events import Event, event
from rules.systems.cortex_common.model import plot_point_die  # noqa: F401  (shared; imported from here too)


@dataclass
class Mods:
    """What a figure's traits do to one roll."""

    attr_steps: int = 0
    skill_steps: int = 0
    bonus_dice: list[Step] = field(default_factory=list)
    plot_point_bonus: int = 0
    sources: list[str] = field(default_factory=list)


class TraitBook:
    """The trait table of a ruleset's data file."""

    def __init__(self, table: Mapping[str, Any]) -> None:
        self.table = dict(table)
        self._cache: dict[tuple, tuple] = {}

    def normalise(self, raw: Iterable[Any], source: str | None, field_: str) -> tuple[dict, ...]:
        """Scenario trait entries (`name`, or `{name, major, ...options}`) as dicts."""
        out = []
        for i, t in enumerate(raw or ()):
            f = f"{field_}[{i}]"
            if isinstance(t, str):
                t = {"name": t}
            if not isinstance(t, Mapping) or "name" not in t:
                raise ScenarioError(f"trait {t!r}", source=source, field=f, expected="a trait name or {name: ...}")
            name = t["name"]
            check_known(name, sorted(self.table), source, f"{f}.name", "trait")
            spec = self.table[name]
            check_keys(t, ("name", "major", "form", *(spec.get("options") or {})), source, f, "trait field")
            form = "major" if t.get("major") or t.get("form") == "major" else "minor"
            if form not in spec:
                form = "major" if "major" in spec else "minor"
            if t.get("form") == "minor" and "minor" not in spec:
                raise ScenarioError(f"{name} has no minor form", source=source, field=f, expected="major")
            opts = {k: v for k, v in t.items() if k not in ("name", "major", "form")}
            for opt, allowed in (spec.get("options") or {}).items():
                val = opts.get(opt, allowed[0])
                if val not in allowed:
                    raise ScenarioError(f"{name}.{opt} = {val!r}", source=source, field=f"{f}.{opt}",
                                        expected="one of " + ", ".join(allowed))
                opts[opt] = val
            out.append({"name": name, "form": form, "options": opts})
        return tuple(out)

    def entries(self, traits: Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, dict]]:
        for t in traits:
            spec = self.table[t["name"]]
            for m in spec.get(t["form"], ()):
                m = dict(m)
                if "when" in m:
                    m["when"] = [w.format(**t["options"]) if "{" in w else w for w in m["when"]]
                yield t["name"], m

    def modifiers(self, traits: Iterable[Mapping[str, Any]], context: Iterable[str], attr: str | None
                  ) -> Mods:
        """The sum of the modifiers that apply (cached; the result must not be changed)."""
        ctx = frozenset(context)
        key = (id(traits), ctx, attr)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is traits:
            return hit[1]
        mods = self._modifiers(traits, ctx, attr)
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[key] = (traits, mods)
        return mods

    def _modifiers(self, traits: Iterable[Mapping[str, Any]], ctx: frozenset, attr: str | None) -> Mods:
        mods = Mods()
        for name, m in self.entries(traits):
            when = m.get("when")
            if not when or not ctx.issuperset(when):
                continue
            a = m.get("attr")
            if "attr_steps" in m:
                names = a if isinstance(a, list) else [a]
                if "roll" in names or (attr is not None and attr in names):
                    mods.attr_steps += int(m["attr_steps"])
                    mods.sources.append(name)
            if "skill_steps" in m:
                mods.skill_steps += int(m["skill_steps"])
                mods.sources.append(name)
            if "bonus_die" in m:
                mods.bonus_dice.append(Step.parse(m["bonus_die"]))
                mods.sources.append(name)
            if "plot_point_bonus" in m:
                mods.plot_point_bonus += int(m["plot_point_bonus"])
                mods.sources.append(name)
        return mods

    def pair_steps(self, traits: Iterable[Mapping[str, Any]], context: Iterable[str], attrs: tuple[str, ...]
                   ) -> list[int]:
        """Attribute steps for a roll of several attribute dice: a modifier naming several
        attributes ("Agility or Alertness") applies once, to the first die it names."""
        ctx = set(context)
        out = [0] * len(attrs)
        for _, m in self.entries(traits):
            when = m.get("when")
            if not when or not ctx.issuperset(when) or "attr_steps" not in m:
                continue
            a = m.get("attr")
            names = a if isinstance(a, list) else [a]
            for i, name in enumerate(attrs):
                if name in names or "roll" in names:
                    out[i] += int(m["attr_steps"])
                    break
        return out

    def value(self, traits: Iterable[Mapping[str, Any]], key: str, default: Any = None) -> Any:
        """A trait value with no context (life_points, second_wind_per_day ...), summed for numbers."""
        found = default
        for _, m in self.entries(traits):
            if key in m:
                v = m[key]
                found = (found or 0) + v if isinstance(v, (int, float)) and key == "life_points" else v
        return found

    def flags(self, traits: Iterable[Mapping[str, Any]]) -> set[str]:
        out: set[str] = set()
        for _, m in self.entries(traits):
            out.update(m.get("flags", ()))
        return out


@dataclass
class CheckResult:
    total: int
    success: bool
    botch: bool
    extraordinary: bool
    event: Event


def skill_check(book: TraitBook, stats: Mapping[str, Any], traits: Iterable[Mapping[str, Any]],
                attribute: str, skill: str | None, difficulty: int, context: Iterable[str], dice: Dice,
                actor: str = "figure", conditions: Iterable[str] = (), plot_points: int = 0,
                extra_dice: Iterable[Step] = (), skill_steps: int = 0) -> CheckResult:
    """The general Cortex skill check: attribute + skill (+ bonus dice) against a Difficulty.

    The context (e.g. {"social", "parting_with_money"}) selects the trait modifiers that apply."""
    ctx = set(context) | set(conditions)
    mods = book.modifiers(traits, ctx, attribute)
    attr = stats["attributes"][attribute]
    attr = Step(max(1, attr.index + mods.attr_steps))
    sk = Step(0)
    if skill:
        base = skill.partition("/")[0]
        sk = max(stats["skills"].get(skill, Step(0)), stats["skills"].get(base, Step(0)))
    sk = sk + (mods.skill_steps + skill_steps)
    pool = [attr, sk, *mods.bonus_dice, *extra_dice]
    if plot_points:
        ppb = book.modifiers(traits, ctx | {"plot_points"}, attribute).plot_point_bonus
        pool.append(plot_point_die(plot_points + ppb))
    named = [{"source": f"{n} (bonus die)", "value": d.index} for n, d in zip(("traits",) * len(mods.bonus_dice),
                                                                               mods.bonus_dice)]
    named += [{"source": f"skill steps ({', '.join(sorted(set(mods.sources))) or 'context'}) (skill)",
               "value": mods.skill_steps + skill_steps}] if mods.skill_steps + skill_steps else []
    named += [{"source": f"traits ({attribute})", "value": mods.attr_steps}] if mods.attr_steps else []
    named += [{"source": "plot points (bonus die)", "value": pool[-1].index}] if plot_points else []
    named += [{"source": "extra die (bonus die)", "value": d.index} for d in extra_dice]
    words = " + ".join(str(p) for p in pool if p)
    r = roll_steps(dice, pool, "check", RollCall(actor, "skill check", "skill_check", words, step_sides(pool),
                                                 difficulty=difficulty, modifiers=calls.mods(named), label="check"))
    ok = r.total >= difficulty and not r.botch
    ev = event("roll", actor=actor, purpose="skill check", check="skill_check", modifiers=named, pool=words,
               dice=[list(f) for f in r.faces], total=r.total, difficulty=difficulty, success=ok,
               context=sorted(set(context)), traits=sorted(set(mods.sources)))
    if r.botch:
        ev["botch"] = True
    return CheckResult(r.total, ok, r.botch, r.total - difficulty >= 7, ev)
