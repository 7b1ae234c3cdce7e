"""Headless Chromium for the browser tests: where the system's browser is, and the flags it runs
with as root on these machines. The browser is never downloaded (no ``playwright install``).
"""
from __future__ import annotations

import os
import shutil

CHROMIUM_PATHS = ("/usr/bin/chromium",)
INSTALL_HINT = ("install Debian's Chromium with `apt-get install -y chromium` "
                "(or run `bash .ci/run`, which installs it)")

# Flags that work for headless Chromium as root on these machines.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

VIEWPORT = {"width": 1280, "height": 1000}


def find_chromium() -> str | None:
    """Path of an installed Chromium, or None when there is none.

    ``KERNELCOURSE_CHROMIUM`` names another Chromium-based browser (e.g.
    ``/usr/bin/google-chrome``); when it is set, nothing else is tried.
    """
    override = os.environ.get("KERNELCOURSE_CHROMIUM")
    if override:
        return override if os.access(override, os.X_OK) else None
    for path in CHROMIUM_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def running_under_ci() -> bool:
    """True when the environment variable CI is set (to anything but 0/false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
