"""The machine: device presets with sources, kernel parameters checked against them, register budgets, time bounds."""
