"""The parameter form: one labelled input per parameter, presets, Apply, input-error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from pysim.params import ParamError, Params

from .dom import h, on


class ParamForm:
    """Inputs for a Params class; Apply parses with pysim so messages match the CLI's."""

    def __init__(
        self, params_cls: type[Params], on_apply: Callable[[Params], None], legend: str = "Problem size"
    ) -> None:
        self.params_cls = params_cls
        self.on_apply = on_apply
        self.inputs: dict[str, object] = {}
        self.element = h("form", "param-form", novalidate="")
        fieldset = h("fieldset", "", children=[h("legend", "", legend)])
        for spec in fields(params_cls):
            label = spec.metadata.get("label") or spec.name
            if "choices" in spec.metadata:
                control = h("select", "", id=f"{params_cls.__name__}-{spec.name}", data_testid=f"input-{spec.name}")
                for choice in spec.metadata["choices"]:
                    control.appendChild(h("option", "", choice.upper(), value=choice))
            else:
                control = h(
                    "input",
                    "",
                    id=f"{params_cls.__name__}-{spec.name}",
                    type="text",
                    inputmode="numeric",
                    size="5",
                    autocomplete="off",
                    data_testid=f"input-{spec.name}",
                )
            text = (
                spec.name
                if label == spec.name
                else (f"{spec.name} ({label})" if spec.name.isupper() else label.capitalize())
            )
            fieldset.appendChild(h("label", "field", children=[h("span", "", text), control]))
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
        self.element.appendChild(fieldset)
        self.element.appendChild(self.error)
        on(self.element, "submit", self._submitted)

    def show(self, params: Params) -> None:
        for name, value in params.as_strings().items():
            self.inputs[name].value = value

    def show_error(self, error: ParamError) -> None:
        self.error.textContent = error.message
        self.error.removeAttribute("hidden")
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

    def _preset_chosen(self, event) -> None:
        values = self.params_cls.PRESETS.get(self.preset.value)
        if values:
            for name, value in values.items():
                self.inputs[name].value = str(value)
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
