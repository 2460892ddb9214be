"""``jaxpapers verify --jobs N``: the selected papers spread over N worker processes.

A paper's claims stay together in one worker, in registry order (they share memoised studies, and a
negative control runs after its positive claim in the same process). Papers go to the next free
worker longest first (the paper's quick budget in ``core.budgets``), so the longest paper starts
at once and the short ones fill the other workers. Each worker is a fresh ``spawn``-ed Python that
runs :func:`jaxpapers.core.claim_runner.run_claim`; results come back as plain dicts, one per claim, as
soon as the claim is done, and the caller sees them in the order they finish. Claims cross the
process boundary by id (``registry.select``), so only registered claims run in parallel.

A worker that dies (the hung-claim watchdog ends its process with exit code 2, or it is killed)
stops the run with :class:`WorkerDied` naming the claim it was running.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import queue
from collections.abc import Callable, Sequence
from typing import Any

from jaxpapers.core.claims import Claim
from jaxpapers.core.errors import JaxpapersError

_DONE = "__done__"


class WorkerDied(JaxpapersError):
    """A verify worker process ended before reporting every claim it was given."""


def paper_groups(claims: Sequence[Claim]) -> list[list[str]]:
    """Claim ids grouped by paper (a control is always of its own paper's claims, so it stays with its
    positive), in the given order within a group; groups longest first by the paper's quick budget
    (``core.budgets``)."""
    from jaxpapers.core import budgets

    groups: dict[str, list[str]] = {}
    for claim in claims:
        groups.setdefault(claim.paper, []).append(claim.id)
    order = sorted(groups, key=lambda slug: -budgets.budget(slug).verify_s)
    return [groups[slug] for slug in order]


def _worker(
    tasks: Any, results: Any, preset: str, out_dir: str | None, overrides: Sequence[str], setup: str | None
) -> None:
    """Runs whole papers (lists of claim ids) from ``tasks`` until it reads None; puts ``("start", id)``
    before and ``("result", asdict(ClaimResult))`` after each claim, then ``(_DONE, None)``."""
    import importlib

    if setup:
        module, _, name = setup.partition(":")
        getattr(importlib.import_module(module), name)()
    from jaxpapers.core import claim_runner, registry

    while (ids := tasks.get()) is not None:
        by_id: dict[str, claim_runner.ClaimResult] = {}
        for claim in registry.select(ids):
            results.put(("start", claim.id))
            r = claim_runner.run_claim(claim, preset, out_dir=out_dir, overrides=overrides)
            if claim.control_of is not None and claim.control_of in by_id:
                claim_runner.judge_control(r, by_id[claim.control_of])
            by_id[claim.id] = r
            results.put(("result", dataclasses.asdict(r)))
    results.put((_DONE, None))


def run_parallel(
    claims: Sequence[Claim],
    preset: str,
    jobs: int,
    *,
    out_dir: str | None = None,
    overrides: Sequence[str] = (),
    on_result: Callable[[Any], None] | None = None,
    setup: str | None = None,
) -> list[Any]:
    """Runs ``claims`` (with their positives already inserted) in ``jobs`` worker processes; returns
    the :class:`~jaxpapers.core.claim_runner.ClaimResult` list in the order of ``claims``.

    ``setup`` is ``"module:function"`` called once in each worker before any claim (e.g. the CLI's
    compilation-cache set-up).
    """
    from jaxpapers.core.claim_runner import ClaimResult

    ctx = mp.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    groups = paper_groups(claims)
    workers = [
        ctx.Process(target=_worker, args=(tasks, results, preset, out_dir, list(overrides), setup), daemon=True)
        for _ in range(max(1, min(jobs, len(groups))))
    ]
    for ids in groups + [None] * len(workers):
        tasks.put(ids)
    for w in workers:
        w.start()
    done: dict[str, ClaimResult] = {}
    running: set[str] = set()
    finished_workers = 0
    try:
        while finished_workers < len(workers):
            try:
                kind, payload = results.get(timeout=1.0)
            except queue.Empty:
                dead = [w for w in workers if not w.is_alive() and w.exitcode not in (0, None)]
                if dead:
                    raise WorkerDied(
                        f"a verify worker exited with code {dead[0].exitcode} while running "
                        f"{', '.join(sorted(running)) or 'no claim'}; its stack is printed above"
                    ) from None
                continue
            if kind == _DONE:
                finished_workers += 1
            elif kind == "start":
                running.add(payload)
            else:
                r = ClaimResult(**payload)
                running.discard(r.id)
                done[r.id] = r
                if on_result is not None:
                    on_result(r)
    finally:
        for w in workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
    return [done[c.id] for c in claims]
