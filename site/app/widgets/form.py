"""The parameter form: one labelled input per parameter, presets, Apply, input-error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from pysim.hardware.devices import DEVICES
from pysim.hardware.params import ParamError, Params

from ..core.dom import h, on


def choice_text(spec, choice) -> str:
    """What a choice reads as: the field's own names, a device preset's name, else the value."""
    names = spec.metadata.get("names")
    if names:
        return names[choice]
    if spec.name == "device" and choice in DEVICES:
        return DEVICES[choice].name
    return str(choice)


def public_key(spec) -> str:
    """The parameter's name in the address and in `input-<name>` (SPEC §3); a field may say otherwise."""
    return spec.metadata.get("key", spec.name)


class ParamForm:
    """Inputs for a Params class; Apply parses with pysim so messages match the CLI's.

    Choice fields (and int fields with `options`) are selects; a field marked `live`
    applies as soon as it changes (e.g. the transpose's pad, the naive kernel's map). A field with
    `shown_when` = (other field, value) is shown only while the other control holds that value (the #/mma
    swizzle editor beside its switch), so it is there when the switch is chosen, even if refused.
    """

    def __init__(
        self,
        params_cls: type[Params],
        on_apply: Callable[[Params], None],
        legend: str = "Problem size",
        collapsed: bool = False,
    ) -> None:
        self.params_cls = params_cls
        self.on_apply = on_apply
        self.inputs: dict[str, object] = {}
        self.dependents: list[tuple[object, str, str]] = []  # (label, field it depends on, value shown at)
        live: list = []
        self.form = h("form", "param-form", novalidate="")
        fieldset = h("fieldset", "", children=[h("legend", "", legend)])
        for spec in fields(params_cls):
            label = spec.metadata.get("label") or spec.name
            key = public_key(spec)
            choices = spec.metadata.get("choices") or spec.metadata.get("options")
            if choices is not None:
                control = h("select", "", id=f"{params_cls.__name__}-{spec.name}", data_testid=f"input-{key}")
                for choice in choices:
                    control.appendChild(h("option", "", choice_text(spec, choice), value=str(choice)))
                if spec.metadata.get("live"):
                    on(control, "change", self._changed)
            else:
                control = h(
                    "input",
                    "",
                    id=f"{params_cls.__name__}-{spec.name}",
                    type="text",
                    inputmode="numeric",
                    size="5",
                    autocomplete="off",
                    data_testid=f"input-{key}",
                )
            text = key if label == key else (f"{key} ({label})" if key.isupper() else label[:1].upper() + label[1:])
            field_label = h("label", "field", children=[h("span", "", text), control])
            if "shown_when" in spec.metadata:
                self.dependents.append((field_label, *spec.metadata["shown_when"]))
            if collapsed and spec.metadata.get("live"):
                live.append(field_label)  # the lesson's own switch (map, pad) stays out of the collapsed form
            else:
                fieldset.appendChild(field_label)
            self.inputs[spec.name] = control
        if params_cls.PRESETS:
            self.preset = h("select", "", data_testid="preset", aria_label="Preset sizes")
            self.preset.appendChild(h("option", "", "Presets…", value=""))
            for name in params_cls.PRESETS:
                self.preset.appendChild(h("option", "", name, value=name))
            on(self.preset, "change", self._preset_chosen)
            fieldset.appendChild(self.preset)
        fieldset.appendChild(h("button", "primary", "Apply", type="submit", data_testid="apply"))
        self.error = h("p", "input-error", "", role="alert", data_testid="input-error", hidden="")
        self.form.appendChild(fieldset)
        self.form.appendChild(self.error)
        on(self.form, "submit", self._submitted)
        # Collapsed (the stepping views): one line, "M=N=6, K=9, T=3 · change", that opens the form on a click
        # or Enter, so the picture starts right under the heading (issue 39: a 13-input form pushed it off the
        # first screen). An error opens it.
        self.summary = h("summary", "param-summary", "", data_testid="form-summary") if collapsed else None
        self.element = self.form
        if self.summary is not None:
            self.details = h("details", "param-details", children=[self.summary, self.form])
            self.element = h("div", "param-bar", children=[self.details, *live])

    def show(self, params: Params) -> None:
        for name, control in self.inputs.items():
            control.value = str(getattr(params, name))
        self._reveal()
        if self.summary is not None:
            self.summary.replaceChildren(
                h("span", "values", summary_text(params)), h("span", "change", " · change", aria_hidden="true")
            )
            self.summary.setAttribute("aria-label", f"{summary_text(params)}: change the sizes")

    def show_error(self, error: ParamError) -> None:
        self.error.textContent = error.message
        self.error.removeAttribute("hidden")
        if self.summary is not None:
            self.details.setAttribute("open", "")
        for name, control in self.inputs.items():
            if name == error.param:
                control.setAttribute("aria-invalid", "true")
            else:
                control.removeAttribute("aria-invalid")

    def clear_error(self) -> None:
        self.error.setAttribute("hidden", "")
        self.error.textContent = ""
        for control in self.inputs.values():
            control.removeAttribute("aria-invalid")

    def _reveal(self) -> None:
        for label, name, value in self.dependents:
            if str(self.inputs[name].value) == value:
                label.removeAttribute("hidden")
            else:
                label.setAttribute("hidden", "")

    def _changed(self, event) -> None:
        self._reveal()
        self._apply()

    def _preset_chosen(self, event) -> None:
        values = self.params_cls.PRESETS.get(self.preset.value)
        if values:
            for name, value in values.items():
                self.inputs[name].value = str(value)
            self._reveal()
            self._apply()

    def _submitted(self, event) -> None:
        event.preventDefault()
        self._apply()

    def _apply(self) -> None:
        raw = {name: str(control.value) for name, control in self.inputs.items()}
        try:
            params = self.params_cls.parse(raw)
            self.on_apply(params)
        except ParamError as error:
            self.show_error(error)


def summary_text(params: Params) -> str:
    """The collapsed form's line: numbers as `key=value`, neighbours of one value joined ("M=N=6, K=9, T=3"),
    then the choices' names."""
    numbers: list[tuple[list[str], str]] = []
    names: list[str] = []
    for spec in fields(params):
        value = getattr(params, spec.name)
        if spec.metadata.get("live"):
            continue  # shown beside the line, as its own control
        if spec.metadata.get("choices"):
            names.append(choice_text(spec, value))
        elif numbers and numbers[-1][1] == str(value):
            numbers[-1][0].append(public_key(spec))
        else:
            numbers.append(([public_key(spec)], str(value)))
    parts = ", ".join("=".join([*keys, value]) for keys, value in numbers)
    return " · ".join([parts, *names]) if names else parts
