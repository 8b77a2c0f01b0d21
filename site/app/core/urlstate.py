"""Parse and write the hash: `#/route?key=value&...` (SPEC §3 deep links).

Pure Python, no browser imports, so it is unit-tested in CPython. Views declare
their parameters; this module only splits and joins text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from urllib.parse import parse_qsl, urlencode


@dataclass(frozen=True)
class ViewSpec:
    """A route with a view: the class that draws it (imported on first visit), where it mounts,
    and, for a stepping view, the key of the kernel it steps (pysim.kernels.KERNELS)."""

    path: str
    module: str
    name: str
    kernel: str | None = None

    @property
    def container(self) -> str:
        return "app-" + self.path.strip("/")


# The one route table: the shell mounts these, the page has a section and a nav link for each.
VIEWS = (
    ViewSpec("/tiling", "app.views.tiling", "TilingView", kernel="smem"),
    ViewSpec("/register", "app.views.register", "RegisterView", kernel="register"),
    ViewSpec("/blocktile1d", "app.views.blocktiled", "Blocktile1DView", kernel="blocktile1d"),
    ViewSpec("/vectorized", "app.views.blocktiled", "VectorizedView", kernel="vectorized"),
    ViewSpec("/warptile", "app.views.blocktiled", "WarptileView", kernel="warptile"),
    ViewSpec("/pipelined", "app.views.pipelined", "PipelinedView", kernel="pipelined"),
    ViewSpec("/mma", "app.views.mma", "MmaView", kernel="mma"),
    ViewSpec("/wgmma", "app.views.wgmma", "WgmmaView", kernel="wgmma"),
    ViewSpec("/hierarchy", "app.views.hierarchy.page", "HierarchyView"),
    ViewSpec("/naive", "app.views.naive", "NaiveView", kernel="naive"),
    ViewSpec("/transpose", "app.views.transpose", "TransposeView", kernel="transpose"),
    ViewSpec("/ladder", "app.views.ladder", "LadderView"),
    ViewSpec("/playground", "app.views.playground.page", "PlaygroundView"),
    ViewSpec("/teach", "app.views.teach", "TeachView"),
)
ROUTES = ("/", *(view.path for view in VIEWS))
STEPPING_VIEWS = tuple(view for view in VIEWS if view.kernel)
# The views that open guided unless the address says guide=0 (SPEC §7): the stepping views and the walkthrough.
GUIDED_VIEWS = tuple(view for view in VIEWS if view.kernel or view.path == "/hierarchy")

# Parameters of the shell itself, kept across every address the views write.
# quiz=1: prediction checkpoints (app.widgets.checkpoint); relay: the link package's nonce (site/scorm/score.js
# relays answers only to the parent that echoes it), kept so that a reload inside the package still relays.
# guide=0|1: the guided lesson off or forced (app.widgets.guide; on by default in the stepping views and the walkthrough).
SHELL_KEYS = ("embed", "lock", "quiz", "relay", "guide")
HOME_TITLE = "TileLab — SGEMM, one thread at a time"  # also index.html's <title>, shown before Python runs
MAX_VALUE_CHARS = 200
# Values allowed to be longer: the playground's compressed code (app.views.codeurl reads at most 16,000).
LONG_VALUE_CHARS = {"code": 20_000}


@dataclass(frozen=True)
class Route:
    path: str
    params: dict[str, str] = field(default_factory=dict)
    known: bool = True

    @property
    def shell(self) -> dict[str, str]:
        return {key: self.params[key] for key in SHELL_KEYS if key in self.params}


def parse_hash(text: str) -> Route:
    """Split a location hash into route and parameters (first value of a repeated key wins)."""
    body = text[1:] if text.startswith("#") else text
    path, _, query = body.partition("?")
    path = path or "/"
    params: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        params.setdefault(key, value[: LONG_VALUE_CHARS.get(key, MAX_VALUE_CHARS)])
    if path not in ROUTES:
        return Route("/", params, known=False)
    return Route(path, params)


def modules_shown(address: str) -> tuple[str, ...]:
    """The module of the view an address shows, if any (site/main.py imports it before the shell builds it)."""
    return tuple(view.module for view in VIEWS if view.path == parse_hash(address).path)


def format_hash(path: str, params: Mapping[str, str]) -> str:
    query = urlencode(dict(params), safe=",")
    return f"#{path}?{query}" if query else f"#{path}"


def pick(params: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The subset of `params` a view understands."""
    return {name: params[name] for name in names if name in params}


# --- sharing a state (the Share dialog, "open in TileLab", the page title) -------------------------
# The toggles a teacher may add to a shared address; `relay` belongs to one course package's frame.
SHARE_KEYS = ("embed", "lock", "quiz")
# Where the reader is inside a state, not which state: left out of the page title.
POSITION_KEYS = ("thread", "step", "code")
MAX_TITLE_CHARS = 120


# Guided mode (SPEC §7): on by default, so a shared "guided" address adds nothing and "free" adds guide=0.
GUIDE_KEY = "guide"
# The routes with a guide, and so a page in #/teach (pysim.lessons.guides; tests/views/test_teach.py checks).
GUIDED = (*(view.path for view in STEPPING_VIEWS), "/hierarchy")
TEACH = "/teach"


def shared_hash(route: Route, toggles: tuple[str, ...] = (), free: bool = False) -> str:
    """The address of `route`'s state with none of the shell's keys but the chosen `toggles` (each =1),
    guided (the default: no `guide` key) or, with `free`, guide=0."""
    params = {key: value for key, value in route.params.items() if key not in (*SHELL_KEYS, GUIDE_KEY)}
    if free:
        params[GUIDE_KEY] = "0"
    return format_hash(route.path, {**params, **{key: "1" for key in SHARE_KEYS if key in toggles}})


def teach_hash(route: Route) -> str | None:
    """The teachers' page for `route`'s state (its sizes, not where the reader is), or None when it has no guide."""
    if route.path not in GUIDED:
        return None
    skipped = (*SHELL_KEYS, *POSITION_KEYS, GUIDE_KEY)
    return format_hash(
        TEACH, {"view": route.path.strip("/"), **{k: v for k, v in route.params.items() if k not in skipped}}
    )


def open_in_full_hash(route: Route) -> str:
    """Inside an embed: the same state in a full page, without embed, lock or the package's relay."""
    return shared_hash(route, ("quiz",) if route.params.get("quiz") == "1" else ())


# The snippet's frame height: on a course page seen at 800×600 the whole frame fits on one screen, with 40 px
# of the 600 to spare for the page's margins, so once the course page brings it into view the student scrolls
# only inside it (at 800 the student scrolled the page and the frame both). The embed layout (embed=1) keeps
# the step controls and counters at the frame's top (tests/browser/test_geometry.py checks at this height).
EMBED_HEIGHT = 560


def iframe_snippet(url: str, title: str) -> str:
    """The `<iframe>` a teacher pastes into a course page (README "Embedding in a course").

    The url's query is urlencoded by `format_hash`, and both values are escaped again here, so no
    address can close the attribute."""
    return (
        f'<iframe src="{escape(url)}"\n        title="{escape(title)}" width="100%" height="{EMBED_HEIGHT}" '
        'loading="lazy"\n'
        '        sandbox="allow-scripts allow-same-origin"></iframe>'
    )


def page_title(view_name: str, route: Route) -> str:
    """The tab's title for a route and its state: "Shared-memory tiling · M=N=K=32, T=8 · TileLab".

    Neighbouring parameters with one value share it (M=N=K=32); the followed thread, the step and the
    playground's code are left out (they change as the reader works, the title names the state)."""
    if route.path == "/":
        return HOME_TITLE
    groups: list[tuple[list[str], str]] = []
    for key, value in route.params.items():
        if key in SHELL_KEYS or key in POSITION_KEYS:
            continue
        if groups and groups[-1][1] == value:
            groups[-1][0].append(key)
        else:
            groups.append(([key], value))
    state = ", ".join("=".join([*keys, value]) for keys, value in groups)
    if len(state) > MAX_TITLE_CHARS:
        state = state[: MAX_TITLE_CHARS - 1] + "…"
    return " · ".join(part for part in (view_name, state, "TileLab") if part)
