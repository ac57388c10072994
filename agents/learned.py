"""Learned policies that run with numpy alone: `NumpyPolicy` reads a `.npz` exported by
`training.export` (no torch, no pickle), builds the observation with `envs.encoding`, and
picks a masked action. It refuses a file whose layout fingerprint does not match.

Registry names: `ppo` (the shipped policy of the scenario's ruleset, from
`tactica/policies/<ruleset>.npz`) and any path to a `.npz` file.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from agents import net_words
from agents.base import Policy
from envs.encoding import ADVICE_ROWS, ECON_LEN, GRID_CHANNELS, PARTS_ROWS, UNIT_FEATURES, Layout, layout_for
from rules.actions import END_TURN, Action
from rules.errors import TacticaError
from rules.ruleset import get_ruleset
from rules.state import BattleState, Combatant

FORMAT = "tactica-policy"
#: the kind that takes back each kind at once (`NumpyPolicy.no_undo`)
UNDO = {"drop_prone": "stand", "stand": "drop_prone"}
#: how many of the network's likeliest actions a decision keeps for the table (`last_choices`)
ALTERNATIVES = 5
#: architecture parts: `cnn` / `mlp` features, and `spatial` (plus its `spatial` head record)
_PLAIN_PARTS = ("grid", "vec", "trunk")
_SPATIAL_PARTS = ("cells", "grid", "vec", "pi", "action")


def _fp_hash(fp: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:16]


def check_archive(path: Path, src: str) -> None:
    """An exported policy within the bounds of rules/limits.py, before numpy unpacks it: a
    regular file of at most MAX_POLICY_BYTES whose members unpack to at most
    MAX_POLICY_UNPACKED bytes (a 5.9 MB zip bomb unpacked to 3.9 GB)."""
    import stat
    import zipfile

    from rules.limits import MAX_POLICY_BYTES, MAX_POLICY_UNPACKED

    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise TacticaError("is not a regular file", source=src, field="(file)", expected="an exported .npz policy")
    if st.st_size > MAX_POLICY_BYTES:
        raise TacticaError(f"{st.st_size:,} bytes is too large", source=src, field="(file)",
                           expected=f"a policy of at most {MAX_POLICY_BYTES:,} bytes")
    try:
        with zipfile.ZipFile(path) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise TacticaError(f"cannot read policy: {e.__class__.__name__}", source=src, field="(file)",
                           expected="an .npz written by `tactica export-policy`") from None
    if unpacked > MAX_POLICY_UNPACKED:
        raise TacticaError(f"unpacks to {unpacked:,} bytes", source=src, field="(file)",
                           expected=f"a policy that unpacks to at most {MAX_POLICY_UNPACKED:,} bytes")


def shipped_policy_path(ruleset: str) -> Path:
    return Path(str(resources.files("tactica"))) / "policies" / f"{ruleset}.npz"


def _conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: tuple[int, int], pad: tuple[int, int],
            dilation: tuple[int, int] = (1, 1)) -> np.ndarray:
    """x (N, C, H, W), w (O, C, kh, kw) -> (N, O, H', W') as torch.nn.Conv2d (with dilation).

    The windows are copied into columns (C x kh x kw, H' x W') and multiplied by the
    weights: one matrix product per image. For one image it gives the same numbers, bit for
    bit, as the einsum it replaced, in about half the time (a 32-channel 3x3 layer on a
    16 x 22 map: 0.25 ms against 0.6-1.5 ms, one BLAS thread). The padding is a zeroed array
    with x written into it and the windows one strided view (`as_strided`): the same columns
    as `np.pad` and `sliding_window_view` gave, bit for bit, without their Python overhead
    (a shipped network's forward pass about 1.4x cheaper; tests/test_learned_conv.py)."""
    n, c, h, wd = x.shape
    if pad[0] or pad[1]:
        xp = np.zeros((n, c, h + 2 * pad[0], wd + 2 * pad[1]), dtype=x.dtype)
        xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
        x = xp
    o, _, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    ho = (x.shape[2] - (kh - 1) * dh - 1) // sh + 1
    wo = (x.shape[3] - (kw - 1) * dw - 1) // sw + 1
    s0, s1, s2, s3 = x.strides
    # N C kh kw H' W': window (i, j) of output cell (y, x) reads x[..., y*sh + i*dh, x*sw + j*dw]
    win = np.lib.stride_tricks.as_strided(x, (n, c, kh, kw, ho, wo), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw),
                                          writeable=False)
    cols = np.ascontiguousarray(win).reshape(n, c * kh * kw, ho * wo)
    out = np.matmul(w.reshape(o, -1), cols).reshape(n, o, ho, wo)
    return out + b[None, :, None, None]


_BLAS: list = []


def _one_blas_thread():
    """A context in which numpy's BLAS uses one thread. The network's products are small: on
    a loaded 2-core machine a second BLAS thread spins and waits, and one 3x3 layer took
    5-7 ms instead of 0.8 (threadpoolctl; without it, a context that does nothing)."""
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController
            _BLAS.append(ThreadpoolController())
        except ImportError:   # pragma: no cover - a core dependency; a bare install still runs
            _BLAS.append(None)
    ctl = _BLAS[0]
    if ctl is None:   # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return ctl.limit(limits=1, user_api="blas")


class NumpyPolicy(Policy):
    """An exported actor network, run with numpy."""

    name = "ppo"
    #: its `act` answers an open question through the answer block (`asks`)
    answers_in_act = True
    #: the default of `no_undo`: mask the action that takes back the figure's last action this turn
    NO_UNDO = False
    #: shared by a snapshot's copy (Policy.shared_memos): what `load` read, never changed after
    shared_memos = ("meta", "w", "layout")

    def __init__(self, path: str | Path | None = None, seed=None, deterministic: bool = True,
                 no_undo: bool | None = None) -> None:
        super().__init__(seed)
        self.no_undo = self.NO_UNDO if no_undo is None else bool(no_undo)
        #: (round, turn index, figure, kind) of the last action committed (`no_undo`)
        self._turn_last: tuple | None = None
        self.path = Path(path) if path is not None else None
        self.deterministic = deterministic
        self.meta: dict[str, Any] | None = None
        self.w: dict[str, np.ndarray] = {}
        self.layout: Layout | None = None
        #: the last action `act` played, and the network's likeliest actions there (`last_choices`)
        self.last_action: Action | None = None
        self._likeliest: list[tuple[float, Action]] = []
        self.advice: str | None = None
        self.advice_parts = False
        self.clock = False
        self.turn_order = False
        self._advisor = None
        self._fits = False
        if self.path is not None:
            self.load(self.path)

    @property
    def last_probs(self) -> list[tuple[float, Action]]:
        """The last decision's three likeliest actions as (probability, action)."""
        return self._likeliest[:3]

    @property
    def last_choices(self) -> list[tuple[Action, str]]:
        """The last decision's likeliest actions with the network's words, likeliest first (the table's
        alternatives: tactica/table/suggest.py)."""
        return net_words.choices(self._likeliest)

    @property
    def advisor(self):
        """The advisor of the fight being played (`envs.advice.Advisor`: its `pick` is the
        action it advised last), or None before the first decision or without advice."""
        return self._advisor

    # -- loading --------------------------------------------------------------------
    def load(self, path: Path) -> None:
        src = str(path)
        if not path.exists():
            raise TacticaError("policy file not found", source=src, field="(file)", expected="an exported .npz policy")
        check_archive(path, src)
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except Exception as e:  # zipfile/format errors: a damaged file
            raise TacticaError(f"cannot read policy: {e.__class__.__name__}", source=src, field="(file)",
                               expected="an .npz written by `tactica export-policy`") from None
        if "__meta__" not in arrays:
            raise TacticaError("no __meta__ record", source=src, field="__meta__", expected="a Tactica policy file")
        try:
            meta = json.loads(str(arrays.pop("__meta__")))
        except ValueError:
            raise TacticaError("metadata is not JSON", source=src, field="__meta__", expected="JSON") from None
        if meta.get("format") != FORMAT:
            raise TacticaError(f"format {meta.get('format')!r}", source=src, field="__meta__.format",
                               expected=repr(FORMAT))
        fp = meta.get("fingerprint") or {}
        if _fp_hash(fp) != meta.get("fingerprint_hash"):
            raise TacticaError("the fingerprint does not match its hash", source=src, field="__meta__.fingerprint",
                               expected="an unmodified export")
        try:
            rs = get_ruleset(fp["ruleset"])
        except TacticaError as e:
            raise e.at(src, "__meta__.fingerprint.ruleset")
        # a policy exported before its ruleset asked questions has no answer block: it plays
        # on a layout without one (the answers are appended last, so every other index is
        # the same) and answers questions with the default (Policy.choose)
        lay = layout_for(rs, int(fp["height"]), int(fp["width"]), int(fp["n_enemy"]), int(fp["n_ally"]),
                         answers="answers" in fp)
        advice = fp.get("advice")
        clock = "clock" in fp
        with_parts = "advice_parts" in fp
        turn_order = "to_act" in fp
        now = lay.fingerprint(advice, clock, with_parts, turn_order)
        if {**now, "version": None} != {**fp, "version": None}:
            raise TacticaError(f"the policy was trained for {fp['ruleset']} v{fp['version']} with another "
                               f"observation/action layout", source=src, field="__meta__.fingerprint",
                               expected=f"the layout of {rs.name} v{rs.version} (retrain or re-export)")
        #: the rules version it learned under; a policy from an older version of the same
        #: layout still plays (the rules it meets differ a little), with this note
        self.trained_version = fp["version"]
        self.version_note = (f"trained under {rs.name} v{fp['version']}; the rules are now v{rs.version} "
                             "(it plays, but retraining would fit them better)" if fp["version"] != rs.version else "")
        arch = meta.get("architecture")
        if not isinstance(arch, dict):
            raise TacticaError("no architecture", source=src, field="__meta__.architecture",
                               expected="the layer specs written by `tactica export-policy`")
        spatial = arch.get("spatial")
        parts = _SPATIAL_PARTS if spatial is not None else _PLAIN_PARTS
        missing = [p for p in parts if not isinstance(arch.get(p), list)]
        if missing:
            raise TacticaError(f"architecture without {', '.join(missing)}", source=src,
                               field="__meta__.architecture", expected=" + ".join(parts))
        stacks = [arch[p] for p in parts]
        if spatial is not None:
            try:
                off, h, w = int(spatial["move_offset"]), int(spatial["height"]), int(spatial["width"])
                stacks += [list(spatial["to_cells"]), list(spatial["move_head"])]
            except (KeyError, TypeError, ValueError):
                raise TacticaError("incomplete spatial head", source=src, field="__meta__.architecture.spatial",
                                   expected="to_cells, move_head, move_offset, height, width") from None
            if (h, w) != (lay.height, lay.width) or not 0 < off <= lay.n_actions - h * w:
                raise TacticaError(f"move block {h}x{w} at {off}", source=src, field="__meta__.architecture.spatial",
                                   expected=f"the layout's {lay.height}x{lay.width} move block at 1")
        if advice is not None:
            adv = arch.get("advice")
            gain = adv.get("gain") if isinstance(adv, dict) else None
            rows = ADVICE_ROWS + (PARTS_ROWS if with_parts else 0)   # the parts' gains follow the advice's
            if spatial is None or not isinstance(gain, str) or gain not in arrays \
                    or arrays[gain].shape != (rows,) or bool(adv.get("parts")) != with_parts:
                raise TacticaError("advice without its weights", source=src, field="__meta__.architecture.advice",
                                   expected=f"a spatial policy with an advice gain of {rows} weights"
                                            + (" and parts: true" if with_parts else ""))
        for layers in stacks:
            for layer in layers:
                if layer["op"] in ("conv2d", "linear"):
                    for suf in (".w", ".b"):
                        if layer["name"] + suf not in arrays:
                            raise TacticaError(f"missing weights {layer['name'] + suf}", source=src,
                                               field="(arrays)", expected="every layer's weights")
        self.meta, self.w, self.layout = meta, arrays, lay
        self.advice = advice
        self.advice_parts = with_parts
        self.clock = clock
        self.turn_order = turn_order
        self._advisor = None
        self._dry_run(src)

    def _dry_run(self, src: str) -> None:
        """One forward pass on a blank observation: weights of the wrong shape, a layer of
        an unknown kind or a head of the wrong width are refused at load, not mid-fight."""
        lay = self.layout
        obs = {"grid": np.zeros((1, len(GRID_CHANNELS), lay.height, lay.width), np.float32),
               "cover": np.zeros((1, lay.n_enemy, 2), np.float32),
               "economy": np.zeros((1, ECON_LEN), np.float32),
               "units": np.zeros((1, lay.n_units, len(UNIT_FEATURES)), np.float32)}
        if self.advice is not None:
            obs["advice"] = np.zeros((1, ADVICE_ROWS, lay.n_actions), np.float32)
        if self.advice_parts:
            obs["advice_parts"] = np.zeros((1, PARTS_ROWS, lay.n_actions), np.float32)
        if self.turn_order:
            obs["to_act"] = np.zeros((1, lay.n_units), np.float32)
        try:
            with np.errstate(all="ignore"):
                out = self.logits(obs)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            raise TacticaError(f"the weights do not fit the layers ({e.__class__.__name__})", source=src,
                               field="(arrays)", expected="weights of the shapes `tactica export-policy` wrote"
                               ) from None
        if getattr(out, "shape", None) != (1, lay.n_actions):
            raise TacticaError(f"{getattr(out, 'shape', None)} action scores", source=src, field="(arrays)",
                               expected=f"(1, {lay.n_actions}): one score per action of the layout")

    def check_env(self, layout: Layout, advice: str | None = None, clock: bool = False,
                  advice_parts: bool = False, turn_order: bool = False) -> None:
        """Refuse an env whose layout (or advisor, clock, advice parts or `to_act` flags) differs
        from the one the policy was trained for."""
        if self.layout is not None and bool(advice_parts) != self.advice_parts:
            raise TacticaError(f"the policy was trained {'with' if self.advice_parts else 'without'} the advisor's "
                               f"score parts, the env has {'them' if advice_parts else 'none'}", field="advice_parts",
                               expected=f"an env with advice_parts={self.advice_parts}")
        if self.layout is not None and bool(turn_order) != self.turn_order:
            raise TacticaError(f"the policy was trained {'with' if self.turn_order else 'without'} the `to_act` "
                               f"flags, the env has {'them' if turn_order else 'none'}", field="turn_order",
                               expected=f"an env with turn_order={self.turn_order}")
        if self.layout is None or _core(layout.fingerprint(advice, clock, advice_parts, turn_order), self.layout) \
                != _core(self.layout.fingerprint(self.advice, self.clock, self.advice_parts, self.turn_order),
                         self.layout):
            raise TacticaError("the policy does not match this environment's layout", field="policy",
                               expected="a policy exported for this ruleset, map size and slot counts")

    # -- forward --------------------------------------------------------------------
    def _run(self, layers: list[dict], x: np.ndarray) -> np.ndarray:
        w = self.w
        for L in layers:
            op = L["op"]
            if op == "conv2d":
                x = _conv2d(x, w[L["name"] + ".w"], w[L["name"] + ".b"], tuple(L["stride"]), tuple(L["padding"]),
                            tuple(L.get("dilation", (1, 1))))
            elif op == "linear":
                x = x @ w[L["name"] + ".w"].T + w[L["name"] + ".b"]
            elif op == "relu":
                x = np.maximum(x, 0)
            elif op == "tanh":
                x = np.tanh(x)
            elif op == "flatten":
                x = x.reshape(x.shape[0], -1)
        return x

    def logits(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Action logits for a batch of observations (arrays with a leading batch axis)."""
        arch = self.meta["architecture"]
        spatial = arch.get("spatial")
        grid = obs["grid"].astype(np.float32)
        cells = self._run(arch["cells"], grid) if spatial is not None else None
        g = self._run(arch["grid"], cells if cells is not None else grid)
        n = obs["grid"].shape[0]
        vs = [obs["cover"].reshape(n, -1), obs["economy"].reshape(n, -1), obs["units"].reshape(n, -1)]
        if self.turn_order:   # the `to_act` flags after the units (training/features.py's order)
            vs.append(obs["to_act"].reshape(n, -1))
        v = np.concatenate(vs, axis=1).astype(np.float32)
        v = self._run(arch["vec"], v)
        if spatial is None:
            return self._run(arch["trunk"], np.concatenate([g, v], axis=1))
        latent = self._run(arch["pi"], np.concatenate([g, v], axis=1))
        out = self._run(arch["action"], latent)
        h = np.maximum(cells + self._run(spatial["to_cells"], latent)[:, :, None, None], 0)
        moves = self._run(spatial["move_head"], h).reshape(n, -1)
        off = int(spatial["move_offset"])
        out[:, off:off + moves.shape[1]] = moves
        adv = arch.get("advice")
        if adv is not None:
            a = obs["advice"].astype(np.float32)
            if adv.get("parts"):   # the parts' rows after the advice's, each with its gain
                a = np.concatenate([a, obs["advice_parts"].astype(np.float32)], axis=1)
            out = out + np.einsum("r,nra->na", self.w[adv["gain"]], a)
            if adv.get("only"):   # the advisor's candidates only (training.features.UNRANKED)
                out = out + np.where(a[:, 1] > 0, 0.0, -1e8).astype(np.float32)
        return out

    def action_probs(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        """Masked softmax over actions for a batch (as MaskablePPO's distribution)."""
        with _one_blas_thread():
            lg = self.logits(obs).astype(np.float64)
        lg = np.where(mask.astype(bool), lg, -1e8)
        lg -= lg.max(axis=1, keepdims=True)
        p = np.exp(lg)
        return p / p.sum(axis=1, keepdims=True)

    # -- Policy ---------------------------------------------------------------------
    def _ensure(self, state: BattleState) -> None:
        if self.meta is None:
            p = shipped_policy_path(state.ruleset)
            if not p.exists():
                raise TacticaError(f"no shipped policy for {state.ruleset}", source=str(p), field="policy",
                                   expected="a trained policy (train one with `tactica train`)")
            self.load(p)

    def check_fits(self, ruleset: str, height: int, width: int, field: str = "policy") -> None:
        """Refuse a fight this policy cannot play: another ruleset's (a metalface policy on a
        cortex_hu fight read a `status` track it does not have) or a map larger than the
        one it was trained on."""
        fp = (self.meta or {}).get("fingerprint") or {}
        src = str(self.path) if self.path is not None else None
        if fp.get("ruleset") != ruleset:
            raise TacticaError(f"a {fp.get('ruleset')} policy cannot play a {ruleset} fight", source=src,
                               field=field, expected=f"a policy exported for {ruleset}")
        lay = self.layout
        if lay is not None and (height > lay.height or width > lay.width):
            raise TacticaError(f"the map is {width}x{height}, the policy sees at most {lay.width}x{lay.height}",
                               source=src, field=field, expected="a map no larger than the policy's")

    def scores(self, state: BattleState, actor: Combatant) -> tuple[dict[int, Action], np.ndarray]:
        """(the legal actions by index, the action probabilities) at this decision. The advisor
        ranks but is not told the action: `commit` it once one is played."""
        self._ensure(state)
        if not self._fits:
            self.check_fits(state.ruleset, state.grid.height, state.grid.width)
            self._fits = True
        lay = self.layout
        rs = get_ruleset(state.ruleset)
        legal = rs.legal_actions(state)
        lmap = lay.legal_map(state, actor, legal)
        reach = [a.cell for a in legal if a.kind == "move"]
        obs = lay.observe(state, actor, actor.team, reach, to_act=self.turn_order)
        if self.clock:
            lay.set_clock(obs, state)
        if self.advice is not None:
            if self._advisor is None:   # one per policy object: policies are per fight and team
                from envs.advice import Advisor
                self._advisor = Advisor(lay, self.advice, int(self.rng.integers(0, 2**63 - 1)), self.advice_parts)
            obs.update(self._advisor.advise(state, actor, lmap, legal))
        batch = {k: v[None] for k, v in obs.items()}
        mask = lay.mask(lmap)[None]
        undo = self._undoing(state, actor)
        if undo is not None:   # the figure's last action this turn is not taken back at once
            for i, a in lmap.items():
                if a.kind == undo:
                    mask[0, i] = 0
        return lmap, self.action_probs(batch, mask)[0]

    def _undoing(self, state: BattleState, actor: Combatant) -> str | None:
        """With `no_undo`, the action kind that would take back the figure's last action of this very turn
        (`UNDO`: stand up right after dropping prone, or the reverse), else None."""
        last = self._turn_last
        if not self.no_undo or last is None or last[:3] != (state.round, state.turn_index, actor.id):
            return None
        return UNDO.get(last[3])

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Tell the advisor (its turn memory) the action played at this decision."""
        self._turn_last = (state.round, state.turn_index, actor.id, action.kind)
        if self._advisor is not None:
            self._advisor.commit(state, actor, action)

    def asks(self, state: BattleState) -> bool:
        """A network with an answer block answers the rules' questions through it, as it learned
        to in the env (where its team's questions go out as decisions); one without takes the
        defaults."""
        self._ensure(state)
        return self.layout.with_answers

    def act(self, state: BattleState, actor: Combatant) -> Action:
        if state.pending is not None and not self.asks(state):   # no answer block: the default
            self.last_action, self._likeliest = None, []
            return self.answer(state)
        lmap, p = self.scores(state, actor)
        if self.deterministic:
            i = int(np.argmax(p))
        else:
            i = int(np.searchsorted(np.cumsum(p), self.uniform() * p.sum()))
            i = min(i, len(p) - 1)
        top = np.argsort(-p)[:ALTERNATIVES]
        likeliest = [(float(p[j]), lmap.get(int(j), END_TURN)) for j in top if p[j] > 0]
        action = lmap.get(i, END_TURN)
        self.last_action, self._likeliest = action, likeliest
        self.last_reason = "learned policy: " + ", ".join(f"{a} {q:.0%}" for q, a in self.last_probs)
        if self._advisor is not None:
            pick = self._advisor.pick
            why = f", as it {self._advisor.pick_reason}" if self._advisor.pick_reason else ""
            self.last_reason += (f" ({self.advice} advised {pick}{why}: {'followed' if pick == action else 'overruled'})"
                                 if pick is not None else "")
        self.commit(state, actor, action)
        return action

    def explain(self, state: BattleState, actor: Combatant, action: Action | None) -> str:
        """The action's numbers (hit odds, damage, cover, the path), then what the network weighed: its
        probability for it and the next likeliest, and what its advisor would have done
        (agents/net_words.py). `action` None: the last one played."""
        action = self.last_action if action is None else action
        if action is None or action != self.last_action or not self.last_probs:
            return super().explain(state, actor, action)
        line = f"{net_words.head(state, actor, action)} - " + net_words.network(
            state, action, self.last_probs, drawn=not self.deterministic)
        adv = net_words.advice(state, action, self.advice or "", self._advisor.pick if self._advisor else None)
        return line + (f"; {adv}" if adv else "")


def _core(fp: dict[str, Any], mine: Layout) -> dict[str, Any]:
    """What an env's layout must share with a policy's: all but the rules version, and, for a
    policy without an answer block, the env's answers (appended last, they move no index)."""
    out = {**fp, "version": None}
    if not mine.with_answers:
        out.pop("answers", None)
        out["n_actions"] = fp["n_actions"] - len(fp.get("answers", ()))
    return out
