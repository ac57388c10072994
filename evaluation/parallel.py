"""Run many seeded fights on worker processes or Ray tasks, gathered back in index order.

A job is a picklable top-level function `fn(payload, index)` and a list of indices. Because
each fight is seeded from (seed, index) alone and results come back in index order, a run
gives the same numbers for any number of workers and on either backend.

- `local`: `workers == 1` plays in this process; more start a `multiprocessing` pool
  (spawned processes, so nothing inherited from the parent - threads, a Ray client - can
  leak into a worker). The pool is kept for the life of the `FightPool`, so the many
  small batches of a precision run or a tuning search pay its start-up once.
- `ray`: each chunk of indices is a Ray task. Without `address`, a local Ray is started on
  demand with `num_cpus=workers`; with an address (`ray://host:10001` or `host:6379`, or
  `auto`), the cluster must have Tactica installed on its nodes. A Ray started here is
  shut down on `close()`.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
from typing import Any, Callable, Sequence

from rules.errors import TacticaError
from rules.limits import cap_workers

BACKENDS = ("local", "ray")
#: set to 1 in local workers unless the user set them: a learnt policy's small matrix
#: products, with the default BLAS threads in every worker on a 2-core machine, made
#: `tactica evaluate` 5x slower (docs/benchmarks.md)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _run_chunk(fn: Callable[[Any, int], Any], payload: Any, indices: Sequence[int]) -> list:
    return [fn(payload, i) for i in indices]


def _run_chunk_star(args: tuple) -> list:
    return _run_chunk(*args)


def chunks(indices: Sequence[int], workers: int, per_worker: int = 8, largest: int = 64) -> list[list[int]]:
    """Split indices into contiguous chunks: several per worker (load balance), none too big."""
    n = len(indices)
    if n == 0:
        return []
    size = max(1, min(largest, math.ceil(n / max(1, workers * per_worker))))
    return [list(indices[i:i + size]) for i in range(0, n, size)]


class FightPool:
    """Workers for seeded fights: `map(fn, payload, indices)` returns results in index order."""

    def __init__(self, workers: int = 1, backend: str = "local", address: str | None = None) -> None:
        if backend not in BACKENDS:
            raise TacticaError(f"unknown backend {backend!r}", field="--backend", expected="local or ray")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise TacticaError(f"workers {workers!r}", field="--workers", expected="a whole number >= 1")
        if address is not None and backend != "ray":
            raise TacticaError("--address is for the ray backend", field="--address",
                               expected="--backend ray with --address")
        #: asked for; the processes started are capped at the cores (rules/limits.cap_workers)
        #: and at the chunks of work (`map`): --workers 200 for 4 fights started 200 processes
        self.requested = workers
        self.workers = workers if address is not None else cap_workers(workers, workers)
        self.backend = backend
        self.address = address
        self._pool = None
        self._ray = None
        self._ray_started = False
        self._remote = None

    # -- start-up -------------------------------------------------------------------
    def _local_pool(self, parts: int | None = None):
        if self._pool is None:
            saved = {v: os.environ.get(v) for v in BLAS_THREADS}
            for v in BLAS_THREADS:
                os.environ.setdefault(v, "1")   # the workers read it when they import numpy
            try:
                self._pool = mp.get_context("spawn").Pool(min(self.workers, parts or self.workers))
            finally:
                for v, old in saved.items():
                    if old is None:
                        os.environ.pop(v, None)
                    else:
                        os.environ[v] = old
        return self._pool

    def _ray_init(self):
        if self._ray is not None:
            return self._ray
        try:
            import ray
        except ImportError:
            raise TacticaError("ray is not installed", field="--backend",
                               expected="pip install 'tactica[dist]' (or --backend local)") from None
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
            if self.address is None:
                kw["num_cpus"] = self.workers
            else:
                kw["address"] = self.address
            try:
                ray.init(**kw)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise TacticaError(f"cannot start or reach Ray: {e}".splitlines()[0], field="--address",
                                   expected="a reachable Ray cluster address (or none for a local Ray)"
                                   ) from None
            self._ray_started = True
        self._ray = ray
        self._remote = ray.remote(_run_chunk)
        return ray

    # -- running --------------------------------------------------------------------
    def map(self, fn: Callable[[Any, int], Any], payload: Any, indices: Sequence[int],
            progress: Callable[[int], None] | None = None,
            on_results: Callable[[list], None] | None = None) -> list:
        """`[fn(payload, i) for i in indices]`, spread over the workers, in index order.

        `progress(k)` is called with the number of results gathered so far, and
        `on_results(new)` with each batch of results as it arrives (in arrival order: on Ray
        a later chunk may come first), for running estimates."""
        indices = list(indices)
        if not indices:
            return []

        def gathered(new: list, k: int) -> None:
            if on_results is not None:
                on_results(new)
            if progress is not None:
                progress(k)

        if self.backend == "ray":
            return self._map_ray(fn, payload, indices, gathered)
        if self.workers == 1:
            out = []
            for i in indices:
                out.append(fn(payload, i))
                gathered(out[-1:], len(out))
            return out
        parts = chunks(indices, self.workers)
        out: list = []
        it = self._local_pool(len(parts)).imap(_run_chunk_star, [(fn, payload, c) for c in parts])
        for res in it:   # imap yields in submission order: the reduction is in index order
            out.extend(res)
            gathered(res, len(out))
        return out

    def _map_ray(self, fn, payload, indices, gathered):
        ray = self._ray_init()
        ref = ray.put(payload)
        parts = chunks(indices, self.workers if self.address is None else
                       max(self.workers, int(ray.cluster_resources().get("CPU", 1))))
        futures = [self._remote.remote(fn, ref, c) for c in parts]
        where = {f: k for k, f in enumerate(futures)}
        got: list = [None] * len(futures)
        pending = list(futures)
        done_n = 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for f in ready:
                res = ray.get(f)
                got[where[f]] = res
                done_n += len(res)
                gathered(res, done_n)
        return [r for part in got for r in part]

    # -- shutting down --------------------------------------------------------------
    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None
        if self._ray is not None and self._ray_started:
            self._ray.shutdown()
        self._ray = None
        self._ray_started = False

    def __enter__(self) -> "FightPool":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None and self._pool is not None:
            self._pool.terminate()
        self.close()
