"""Guided lessons (issue 38): each stepping view's and the walkthrough's key moments, as data.

`guide_for(view, params)` returns a Guide: 6–10 entries in step order, each a Moment (asked) or a
Skipped (a moment with no answer at these sizes: shown as one line with its reason, never asked),
then one "change it" Task. Every answer is computed by pysim for the sizes on screen.

How a view uses a guide (SPEC §7 names):

- The guide's root is `data-testid="guide"` with `data-moment="i"` (the index in `guide.moments`)
  and `data-moments="n"`; "Explore freely" is `guide-off` (and `guide=0` in the address).
- Between moments Play/Step run as today, but the player stops at `moment.step` (the view shows that
  step, following `moment.thread` when it is set) and goes no further until the moment is answered or
  revealed. Moments come in the order they are asked (by `step`, then `reveal`); their spans may nest:
  a block's loads are asked at its first step and revealed at its last, with one-step questions in
  between. So the player stops at every unanswered moment's `step` to ask, and at every answered
  moment's `reveal` to mark it and show its why. While it is open, every counter in `moment.hidden` (data-testids such as
  `counter-global_loads`) is hidden; the walkthrough's `hidden` are its `data-slot` names (such as
  `tiled-total`), and it shows no step after `moment.step` until the moment is answered.
- The question is `guide-question` with `data-kind` = `moment.kind` and text `moment.question`:
  "number": typed into `guide-answer`; refuse in place anything that is not a whole number.
  "choice": one `guide-choice` button per `moment.choices`, `data-value` = `Choice.value`.
  "cells": the student clicks grid cells (`data-array`, `data-index="row,col"`) and confirms with
  `guide-submit`; refuse an empty selection in place. The answer is a frozenset of (array, row, col).
- `marking.mark(moment, response)` marks an answer (typed text, a choice's value, or the clicked cells):
  `right` True/False, or None with `refusal` to show in place (nothing recorded, nothing advances);
  for cells it also says which were `hit`, `missed` and `extra`, for the picture to mark.
- `guide-reveal` shows the answer (`moment.answer_text`). After an answer or a reveal, the player plays
  on to `moment.reveal` (where it happens; it stops first at any moment asked on the way), marks
  predicted against actual cells, `guide-result` gets `data-value` right|wrong|shown and `guide-why`
  the sentence `moment.why`; `guide-next` goes on.
- A Skipped entry is shown as its `reason`, never asked. The Task shows `task.instruction`; when the
  student's parameters equal the guide's with `task.change` applied, its moment is asked on that trace.
- Grid names: a cells answer's array is the grid's name (`grid-<name>`: A, B, C, tileA, tileB, As, Bs,
  tile). A grid drawn on a canvas at large sizes is clicked all the same: the view picks the cell under the
  click (`canvas-<name>`).
- SCORM: `moment.key` is a stable id (`cmi.interactions.n.id`); kind number/choice/cells map to the
  types numeric/choice/performance.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ...core.trace import Trace
from ...hardware.params import HierarchyParams
from ...kernels import KERNELS
from ..walkthrough import Walkthrough
from . import walkthrough
from .common import Run
from .model import Choice, Guide, Moment, Skipped, Task

# The route of each view, and the module of its guide (kernel views by the registry's key).
ROUTES = {
    "naive": "naive",
    "tiling": "smem",
    "register": "register",
    "blocktile1d": "blocktile1d",
    "vectorized": "vectorized",
    "warptile": "warptile",
    "pipelined": "pipelined",
    "mma": "mma",
    "wgmma": "wgmma",
    "transpose": "transpose",
}
WALKTHROUGH = "hierarchy"


def view_name(view: str) -> str:
    """The route without "#/" or "/" for a route ("#/tiling"), a route name or a kernel key ("smem")."""
    name = view.lstrip("#").strip("/")
    if name == WALKTHROUGH or name in ROUTES:
        return name
    route = next((route for route, key in ROUTES.items() if key == name), None)
    if route is None:
        raise KeyError(f"no guide for {view!r}: one of {', '.join([*ROUTES, WALKTHROUGH])}")
    return route


def guide_for(view: str, params: Any = None, trace: Trace | None = None) -> Guide:
    """The guide of a view (route or kernel key) at `params`: its Params object, a mapping of address
    values (parsed as the view parses them), or None for the kernel's defaults. `trace`: the view's own
    trace of those sizes, when it has one (a stepping view), so the guide reads the steps it shows and
    does not build them again."""
    name = view_name(view)
    kind = HierarchyParams if name == WALKTHROUGH else KERNELS[ROUTES[name]].PARAMS
    if params is None or isinstance(params, Mapping):
        params = kind.parse(params or {})
    if name == WALKTHROUGH:
        walk = Walkthrough(params)
        return Guide(name, params, tuple(walkthrough.entries(walk)), walkthrough.task(walk))
    # Each guide's module is named for its route and imported when first asked for: a page imports only the
    # guide of the view it shows (the build's import plan keeps each import step small, tests/build).
    module = importlib.import_module(f"{__name__}.{name}")
    kernel = KERNELS[ROUTES[name]]
    if trace is not None and (trace.kernel is not kernel or trace.params != params):
        raise ValueError(f"the trace given is of {trace.kernel.NAME} at other sizes than the guide's")
    run = Run.of(kernel, params) if trace is None else Run(kernel, params, trace)
    return Guide(name, params, in_step_order(module.entries(run)), module.task(run))


def in_step_order(entries: list[Moment | Skipped]) -> tuple[Moment | Skipped, ...]:
    """Moments by the step they are asked at, the soonest revealed first (stable); a skip stays right
    after the moment listed before it."""
    keys: list[tuple[int, int]] = []
    at = (-1, -1)
    for entry in entries:
        at = (entry.step, entry.reveal) if isinstance(entry, Moment) else at
        keys.append(at)
    order = sorted(range(len(entries)), key=lambda i: keys[i])
    return tuple(entries[i] for i in order)


__all__ = ["Choice", "Guide", "Moment", "Skipped", "Task", "guide_for", "view_name"]
