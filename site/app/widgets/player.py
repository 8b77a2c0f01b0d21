"""Step controls shared by the stepping views: buttons, speed, keyboard, play timer."""

from __future__ import annotations

from collections.abc import Callable

from pyscript import window

from ..core.dom import Listeners, h, stop
from .icons import labelled

DEFAULT_SPEED_MS = 600


class Player:
    """Owns the current step index; asks the view to show a step, never draws itself."""

    def __init__(self, show: Callable[[int], None], next_block: Callable[[int], int]) -> None:
        self.show = show
        self.next_block_of = next_block
        self.index = 0
        self.length = 1
        self.timer: int | None = None
        self.speed = DEFAULT_SPEED_MS
        self.listeners = Listeners()
        # One timer proxy for the player's life: every Play reuses it (a proxy per Play would pile up).
        self.tick = self.listeners.proxy(lambda *args: self.go(self.index + 1))
        button = lambda label, testid, key, handler: self._button(label, testid, key, handler)  # noqa: E731
        self.reset_button = button(labelled("reset", "Reset"), "reset", "Home", lambda e: self.reset())
        self.prev_button = button(labelled("prev", "Prev"), "prev", "ArrowLeft", lambda e: self.go(self.index - 1))
        # Both of Play's faces are in the button, one hidden (css/picture.css, "layout"): it is as wide
        # playing as paused, so the buttons after it never move under the cursor.
        faces = h("span", "faces", children=[h("span", "paused", children=labelled("play", "Play"))])
        faces.appendChild(h("span", "playing", children=labelled("pause", "Pause")))
        self.play_button = button([faces], "play", "Space", lambda e: self.toggle())
        self.step_button = button(
            labelled("next", "Step", after=True), "step", "ArrowRight", lambda e: self.go(self.index + 1)
        )
        self.block_button = button(
            labelled("block", "Next block", after=True),
            "next-block",
            "N",
            lambda e: self.go(self.next_block_of(self.index)),
        )
        self.end_button = button(
            labelled("end", "Run to end", after=True), "run-to-end", "End", lambda e: self.go(self.length - 1)
        )
        self.speed_input = h(
            "input",
            "",
            type="range",
            min="50",
            max="2000",
            step="50",
            value=str(self.speed),
            id=f"speed-{id(self)}",
            data_testid="speed",
            aria_valuetext=f"{self.speed} ms per step",
        )
        self.speed_output = h("output", "", f"{self.speed} ms")
        self.listeners.on(self.speed_input, "input", self._speed_changed)
        speed = h("label", "speed", children=[h("span", "", "Speed"), self.speed_input, self.speed_output])
        self.position = h("span", "position", "", aria_live="off")
        # A way in for a first visit: said only at step 0, so it is gone once the reader has stepped.
        self.prompt = h(
            "span",
            "step-prompt",
            "Press Step (or →) to run the next step, or Play to run them in turn.",
            data_testid="step-prompt",
        )
        self.element = h(
            "div",
            "player",
            role="toolbar",
            aria_label="Step controls",
            children=[
                self.reset_button,
                self.prev_button,
                self.play_button,
                self.step_button,
                self.block_button,
                self.end_button,
                speed,
                self.position,
                self.prompt,
            ],
        )

    def _button(self, children: list, testid: str, key: str, handler: Callable):
        element = h("button", "", children=children, type="button", data_testid=testid, aria_keyshortcuts=key)
        self.listeners.on(element, "click", handler)
        return element

    def load(self, length: int, index: int) -> None:
        self.pause()
        self.length = length
        self.go(index)

    def go(self, index: int) -> None:
        self.index = max(0, min(index, self.length - 1))
        # Steps count from 0 in the address, on the page and in the walkthrough (docs/GLOSSARY.md):
        # "step 3 of 91" is step=3, and 91 is the last step.
        self.position.textContent = f"step {self.index} of {self.length - 1}"
        self.prompt.hidden = self.index > 0
        self.prev_button.disabled = self.index == 0
        at_end = self.index == self.length - 1
        self.step_button.disabled = self.end_button.disabled = self.block_button.disabled = at_end
        if at_end:
            self.pause()
        self.show(self.index)

    def reset(self) -> None:
        self.pause()
        self.go(0)

    def toggle(self) -> None:
        if self.timer is None:
            self.play()
        else:
            self.pause()

    def play(self) -> None:
        if self.index >= self.length - 1:
            self.go(0)
        self.timer = window.setInterval(self.tick, self.speed)
        self.play_button.setAttribute("aria-pressed", "true")

    def pause(self) -> None:
        stop(self.timer)
        self.timer = None
        self.play_button.setAttribute("aria-pressed", "false")

    def _speed_changed(self, event) -> None:
        self.speed = int(self.speed_input.value)
        self.speed_output.textContent = f"{self.speed} ms"
        self.speed_input.setAttribute("aria-valuetext", f"{self.speed} ms per step")
        if self.timer is not None:
            self.pause()
            self.play()

    def key(self, event) -> bool:
        """Handle a keyboard shortcut; True when it was one of ours."""
        actions = {
            " ": self.toggle,
            "ArrowRight": lambda: self.go(self.index + 1),
            "ArrowLeft": lambda: self.go(self.index - 1),
            "n": lambda: self.go(self.next_block_of(self.index)),
            "N": lambda: self.go(self.next_block_of(self.index)),
            "Home": self.reset,
            "End": lambda: self.go(self.length - 1),
        }
        action = actions.get(event.key)
        if action is None:
            return False
        action()
        return True
