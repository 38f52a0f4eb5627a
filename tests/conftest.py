"""Test-wide settings."""

import os

from hypothesis import settings

# In CI, property tests draw the same examples every run, so a red build always reproduces.
# Locally they explore new examples each time (and keep failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
