"""Where the playground's runs happen: a Web Worker with its own Pyodide (site/playworker.js), so this
thread only edits and draws; on this thread only where no worker can start (file://, a refused worker).

Requests go one at a time, each with a wall-clock limit. A request that overruns it, crashes the
worker's interpreter, or is stopped, ends with `terminate()`: a fresh worker starts at once, reruns
the last run that succeeded (so stepping through it goes on) and takes the next request.
Requests and replies are JSON text, answered by pysim.play.session.Session on either side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyodide.ffi import to_js
from pyscript import document, window

from pysim.play.protocol import STOPPABLE, Request, RunRequest, kind_of
from pysim.play.session import Session, encode_request, loads

from ...core.dom import AFTER_FRAME_MS, Listeners

# Wall-clock limits: a backstop behind the step budget (pysim.play), which should stop a runaway first with a
# precise diagnostic; a run at the whole budget takes about 8 s of a laptop's Pyodide and far more on a busy
# machine, so the limits sit well above that.
RUN_LIMIT_MS = 30_000  # one run of the student's kernel
GRADE_LIMIT_MS = 60_000  # one grade: the kernel at every size of the puzzle
ASK_LIMIT_MS = 10_000  # one interval, warp picture or storer of a run that has finished
WORKER_FILE = "playworker.js"

Failed = Callable[[str, str], None]  # (why: "timeout" | "stopped" | "crashed", what the interpreter said)
# A Run's timeline as performance measures named "playground <op>: <part>" (bench/playground.py lists them,
# DevTools' Performance panel shows them): each request's way to the worker, its time there, the way back
# and its decoding here; the page adds what it draws. Kept for a Run's own requests only and cleared at each Run,
# so they never pile up.
SPAN_PREFIX = "playground "


@dataclass(frozen=True)
class Job:
    request: Request
    limit_ms: int
    on_reply: Callable[[dict], None]
    on_fail: Failed
    on_progress: Callable[[int, int], None] | None = None
    timed: bool = False  # its timeline is kept as performance measures (see SPAN_PREFIX)


def ignore_failure(why: str, detail: str) -> None:
    """A background request (the rerun of the last good run) fails quietly: the next Run says why."""


def js_object(values: dict):
    return to_js(values, dict_converter=window.Object.fromEntries)


def span(op: str, part: str, start: float, end: float | None = None) -> None:
    """One part of a request's timeline, from `start` to `end` (now when None), in performance.now() ms."""
    finish = window.performance.now() if end is None else end
    window.performance.measure(f"{SPAN_PREFIX}{op}: {part}", js_object({"start": start, "end": finish}))


def clear_spans() -> None:
    for entry in window.performance.getEntriesByType("measure"):
        if str(entry.name).startswith(SPAN_PREFIX):
            window.performance.clearMeasures(entry.name)


class Runner:
    """Sends Jobs to the worker one at a time; `on_status(state, detail)` hears "starting", "ready",
    "restarting" and "main-thread" (detail: why no worker)."""

    def __init__(self, on_status: Callable[[str, str], None]) -> None:
        self.on_status = on_status
        self.worker = None
        self.ready = False
        self.local: Session | None = None  # set where runs happen on this thread
        self.queue: list[Job] = []
        self.current: Job | None = None
        self.current_id = 0
        self.replay: RunRequest | None = None  # the last run that succeeded
        self.timer = None
        self.sent_at = 0.0  # performance.now() when the current request went to the worker
        self.spawned_at = 0.0  # performance.now() when the current worker was started
        self.listeners = Listeners()  # the timers' proxies, made once
        self.overran_proxy = self.listeners.proxy(lambda *args: self.end_current("timeout", ""))
        self.local_proxy = self.listeners.proxy(lambda *args: self.answer_here())
        self.send_proxy = self.listeners.proxy(lambda *args: self.send())
        self.unsent: Job | None = None  # the current request, to be sent after the frame that shows it began
        self.retire_proxy = self.listeners.proxy(lambda *args: self.close_retired())
        self.worker_listeners = Listeners()  # the current worker's
        self.retired: list[Listeners] = []  # a terminated worker's, closed once its handler has returned

    @property
    def in_worker(self) -> bool:
        return self.local is None

    def start(self) -> None:
        """The playground was opened: start the worker (once)."""
        if self.worker is not None or self.local is not None:
            return
        if window.location.protocol == "file:" or not hasattr(window, "Worker"):
            self.run_here("a page opened from a file cannot start a worker")
            return
        self.on_status("starting", "")
        self.spawn()

    def spawn(self) -> None:
        try:
            worker = window.Worker.new(WORKER_FILE, js_object({"type": "module"}))
        except Exception as error:  # noqa: BLE001 - a browser or policy that refuses workers
            self.run_here(f"this browser refused the worker ({error})")
            return
        self.worker = worker
        self.ready = False
        self.spawned_at = window.performance.now()
        self.worker_listeners.on(worker, "message", lambda event: self.received(event.data))
        self.worker_listeners.on(worker, "error", self.died)
        wasm_bytes = document.documentElement.getAttribute("data-wasm") == "bytes"
        worker.postMessage(js_object({"kind": "start", "wasmBytes": wasm_bytes}))

    def run_here(self, why: str) -> None:
        """No worker: answer on this thread (a kernel that never ends holds it until the step budget stops it)."""
        self.close_worker()
        self.local = Session()
        self.on_status("main-thread", why)
        self.pump()

    def close_worker(self) -> None:
        if self.worker is not None:
            self.worker.terminate()
            self.worker = None
        # Usually called from one of these listeners: destroy them only after it returns.
        self.retired.append(self.worker_listeners)
        self.worker_listeners = Listeners()
        window.setTimeout(self.retire_proxy, 0)
        self.ready = False

    def close_retired(self) -> None:
        for listeners in self.retired:
            listeners.close()
        self.retired = []

    def restart(self) -> None:
        self.close_worker()
        self.on_status("restarting", "")
        self.spawn()

    # --- requests ------------------------------------------------------------------------------
    def request(self, job: Job) -> None:
        self.queue.append(job)
        self.pump()

    def remember(self, request: RunRequest) -> None:
        """`request` (a run) succeeded: a fresh worker reruns it, so its intervals stay reachable."""
        self.replay = request

    def busy(self) -> bool:
        return self.current is not None

    def pump(self) -> None:
        if self.current is not None or not self.queue or not (self.ready or self.local is not None):
            return
        self.current = self.queue.pop(0)
        self.sent_at = window.performance.now()
        # A request starts after the frame that shows what asked for it: on this thread Python would hold the
        # thread, and in the worker it takes a core that the page shares on a two-core machine (a run's results
        # laid out while the worker computed its first interval took 23 ms of CPU and 70-85 ms of wall time).
        if self.local is not None:
            window.setTimeout(self.local_proxy, AFTER_FRAME_MS)
            return
        self.current_id += 1  # a message of an earlier request is ignored from now on
        self.unsent = self.current
        window.setTimeout(self.send_proxy, AFTER_FRAME_MS)

    def send(self) -> None:
        """Post the current request to the worker, unless it ended meanwhile (stopped before it was sent)."""
        job, self.unsent = self.unsent, None
        if job is None or job is not self.current:
            return
        message = {"kind": "request", "id": self.current_id, "text": encode_request(job.request)}
        self.worker.postMessage(js_object(message))
        self.timer = window.setTimeout(self.overran_proxy, job.limit_ms)

    def finish(self) -> Job | None:
        job, self.current = self.current, None
        if self.timer is not None:
            window.clearTimeout(self.timer)
            self.timer = None
        return job

    def answer_here(self) -> None:
        job = self.current
        if job is None or self.local is None:
            return
        reply = loads(self.local.handle(encode_request(job.request)))
        self.finish()
        job.on_reply(reply)
        self.pump()

    def stop(self) -> None:
        """The student pressed Stop: the run or grade under way ends, and one waiting behind a quick question
        about the run on screen (an interval) is dropped."""
        if not self.in_worker:
            return
        waiting = [job for job in self.queue if isinstance(job.request, STOPPABLE)]
        self.queue = [job for job in self.queue if not isinstance(job.request, STOPPABLE)]
        if self.current is not None and isinstance(self.current.request, STOPPABLE):
            self.end_current("stopped", "")
        for job in waiting:
            job.on_fail("stopped", "")

    def end_current(self, why: str, detail: str) -> None:
        """The current request overran, crashed or was stopped: terminate the worker and start a fresh one."""
        job = self.finish()
        if self.replay is not None:
            self.queue.insert(0, Job(self.replay, RUN_LIMIT_MS, lambda reply: None, ignore_failure))
        self.restart()
        if job is not None:
            job.on_fail(why, detail)

    # --- the worker's messages ----------------------------------------------------------------------
    def received(self, data) -> None:
        kind = data.kind
        if kind == "ready":
            self.ready = True
            # Its start (in the worker, and from here), heap size and what it fetched: for tests and benches.
            data.readyAfterMs = window.performance.now() - self.spawned_at
            window.tilelabPlayworker = data
            self.on_status("ready", "")
            self.pump()
        elif kind == "failed":
            self.run_here(f"the worker could not start ({data.message})")
        elif data.id != self.current_id or self.current is None:
            return  # from a request already given up
        elif kind == "progress":
            if self.current.on_progress is not None:
                self.current.on_progress(int(data.threads), int(data.steps))
        elif kind == "reply":
            arrived, sent = window.performance.now(), self.sent_at
            window.tilelabPlayworker.heapBytes = data.heapBytes  # the heap grows and is never given back
            job = self.finish()
            self.pump()
            if job is None:
                return
            reply = loads(str(data.text))
            if job.timed:
                op, origin = (
                    kind_of(job.request),
                    window.performance.timeOrigin,
                )  # the worker's times: ms since the epoch
                span(op, "to the worker", sent, data.began - origin)
                span(op, "in the worker", data.began - origin, data.ended - origin)
                span(op, "back to the page", data.ended - origin, arrived)
                span(op, "decoded", arrived)
            job.on_reply(reply)
        elif kind == "crashed":
            self.end_current("crashed", str(data.message))

    def died(self, event) -> None:
        """The worker's script failed (an error event): before it was ready, no worker here."""
        event.preventDefault()
        message = getattr(event, "message", "")  # an ErrorEvent has one; a script that failed to load, none
        if not self.ready:
            self.run_here(f"the worker could not start ({message or 'its script failed to load'})")
        else:
            self.end_current("crashed", str(message or "the worker stopped"))
