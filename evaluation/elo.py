"""Elo ratings from a round robin, with bootstrap intervals.

The ratings are the maximum-likelihood Bradley-Terry strengths of the policies on the
Elo scale (a 400-point gap means 10:1 odds), fitted to every fight of the round robin:
a win scores 1, a draw 1/2, a loss 0. Two things keep them finite and comparable:

- a prior of one virtual draw for every pair that played (a policy that won every fight
  still gets a finite rating; with 400 fights a pair it moves a rating by a few points);
- the ratings are centred on 1500 (their mean), so only differences carry meaning.

The 95% interval of each rating is a percentile bootstrap: the fights of every pair are
resampled with replacement (pair by pair, so each pair keeps its number of fights), the
ratings are refitted, and the 2.5th and 97.5th percentiles are taken. The bootstrap's
generator is seeded, so the same round robin gives the same intervals.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

SCALE = 400.0 / math.log(10.0)  # natural-log strength -> Elo points
CENTRE = 1500.0


def fit(policies: Sequence[str], wins: np.ndarray, games: np.ndarray, prior_draws: float = 1.0,
        iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Elo ratings from `wins[i, j]` (i's score against j, draws as halves) and `games[i, j]`.

    Minorisation-maximisation for Bradley-Terry (Hunter 2004); a prior of `prior_draws`
    virtual draws is added to every pair that played."""
    n = len(policies)
    played = games > 0
    w = wins + 0.5 * prior_draws * played
    g = games + prior_draws * played
    total = w.sum(axis=1)
    gamma = np.ones(n)
    for _ in range(iters):
        denom = (g / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.maximum(denom, 1e-300), gamma)
        new = new / math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = SCALE * np.log(gamma)
    return r - r.mean() + CENTRE


def tables(policies: Sequence[str], games: Sequence[tuple[str, str, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(wins, games) matrices from (a, b, a's score) records."""
    idx = {p: i for i, p in enumerate(policies)}
    n = len(policies)
    wins = np.zeros((n, n))
    cnt = np.zeros((n, n))
    for a, b, s in games:
        i, j = idx[a], idx[b]
        wins[i, j] += s
        wins[j, i] += 1.0 - s
        cnt[i, j] += 1
        cnt[j, i] += 1
    return wins, cnt


def elo_ratings(policies: Sequence[str], games: Sequence[tuple[str, str, float]], n_boot: int = 1000,
                seed: int = 0, level: float = 0.95) -> list[dict[str, Any]]:
    """[{policy, rating, ci_low, ci_high, games}] from (a, b, a's score) fight records,
    best first."""
    policies = list(policies)
    wins, cnt = tables(policies, games)
    rating = fit(policies, wins, cnt)
    # the bootstrap resamples each pair's fights: per pair, a's score is a sum of
    # resampled fight scores
    by_pair: dict[tuple[str, str], list[float]] = {}
    for a, b, s in games:
        by_pair.setdefault((a, b), []).append(s)
    rng = np.random.default_rng([int(seed), 0xE10])
    idx = {p: i for i, p in enumerate(policies)}
    boots = np.empty((n_boot, len(policies)))
    pairs = [(idx[a], idx[b], np.asarray(s, dtype=float)) for (a, b), s in by_pair.items()]
    for k in range(n_boot):
        w = np.zeros_like(wins)
        for i, j, s in pairs:
            tot = float(s[rng.integers(0, len(s), len(s))].sum())
            w[i, j] += tot
            w[j, i] += len(s) - tot
        boots[k] = fit(policies, w, cnt, iters=300, tol=1e-6)
    lo_q, hi_q = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    lo = np.percentile(boots, lo_q, axis=0) if n_boot else rating
    hi = np.percentile(boots, hi_q, axis=0) if n_boot else rating
    out = [{"policy": p, "rating": round(float(rating[i]), 1), "ci_low": round(float(lo[i]), 1),
            "ci_high": round(float(hi[i]), 1), "games": int(cnt[i].sum())} for i, p in enumerate(policies)]
    out.sort(key=lambda d: -d["rating"])
    return out


def expected_score(ra: float, rb: float) -> float:
    """The Elo expectation of a's score against b."""
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
