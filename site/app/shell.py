"""Start the app: mount the views and tell the boot guard we are ready."""

from pyscript import window


def start() -> None:
    window.tilelabPython = window.Date.now()
    window.tilelabBoot.ready()
