"""Exact odds of Cortex dice pools (no dice are rolled), shared by Cortex-family rulesets.

`pmf(sizes)` is the distribution of the sum of dice; `hit_stats` is the chance that an
attack pool meets a Difficulty set by a defence pool (a botch always misses).
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4096)
def pmf(sizes: tuple[int, ...]) -> tuple[float, ...]:
    """P(sum = k) for k = 0 .. sum(sizes) when rolling dice with these side counts."""
    dist = [1.0]
    for s in sizes:
        new = [0.0] * (len(dist) + s)
        p = 1.0 / s
        for k, q in enumerate(dist):
            if q:
                for f in range(1, s + 1):
                    new[k + f] += q * p
        dist = new
    return tuple(dist)


def steps_sizes(steps) -> tuple[int, ...]:
    out: list[int] = []
    for st in steps:
        out.extend(st.dice)
    return tuple(sorted(out))


@lru_cache(maxsize=65536)
def hit_stats(att: tuple[int, ...], dfn: tuple[int, ...], dfn_add: int, floor: int, extra: int, xmargin: int
              ) -> tuple[float, float, float]:
    """(P(hit), E[margin | hit], P(extraordinary)) for attack dice vs defence dice + dfn_add.

    The defence total is max(defence roll, floor) + dfn_add + extra; a botch (all ones) misses."""
    pa = pmf(att)
    pd = pmf(dfn) if dfn else (1.0,)
    botch_total = len(att)
    p_botch = 1.0
    for s in att:
        p_botch /= s
    p_hit = 0.0
    e_margin = 0.0
    p_x = 0.0
    for d, qd in enumerate(pd):
        if not qd:
            continue
        diff = max(d, floor) + dfn_add + extra
        for a in range(max(diff, 0), len(pa)):
            q = pa[a]
            if not q:
                continue
            if a == botch_total and att:
                q -= p_botch
                if q <= 0:
                    continue
            w = qd * q
            p_hit += w
            e_margin += w * (a - diff)
            if a - diff >= xmargin:
                p_x += w
    return p_hit, (e_margin / p_hit if p_hit > 0 else 0.0), p_x


__all__ = ["pmf", "steps_sizes", "hit_stats"]
