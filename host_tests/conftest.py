"""Puts the firmware, the tools and the MicroPython look-alikes on sys.path for every host
test (through tools/paths.py, the one place that sets the tools' paths), and the test
folders, and chooses how hypothesis draws its examples.

Hypothesis profiles (environment variable HYPOTHESIS_PROFILE):
- `ci` (what `.ci/run` selects): derandomized and without an example database, so every run
  of a commit draws the same examples and passes or fails the same way.
- `dev` (the default, `make test` on your machine): random draws from a seed chosen for the
  whole run and printed in pytest's header and again after a failure; rerun the same draws
  with `make test HYPOTHESIS_SEED=N` (or `pytest --hypothesis-seed=N`).
"""

import os
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import core as hypothesis_core
from hypothesis import settings as hypothesis_settings

# Neither profile lets the machine's speed decide a result: no deadline per example and no
# "too slow" health check (a loaded CI machine would fail them at random).
_NOT_TIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
hypothesis_settings.register_profile(
    "ci", derandomize=True, database=None, print_blob=True, **_NOT_TIMED
)
hypothesis_settings.register_profile("dev", print_blob=True, **_NOT_TIMED)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
hypothesis_settings.load_profile(PROFILE)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import paths  # noqa: E402

paths.install(board=True)  # the tools' folders, the firmware's and the fakes (tools/simboard/)
# The test folders: a test imports another's helpers (and harness/) by their flat names.
TESTS = ROOT / "host_tests"
TEST_FOLDERS = ("chip", "core", "core_cpython", "drivers", "firmware", "tools", "ui")
for p in map(str, reversed([TESTS, *(TESTS / name for name in TEST_FOLDERS)])):
    if p not in sys.path:
        sys.path.insert(0, p)

from simboard import vtime  # noqa: E402

vtime.install()


@pytest.fixture
def vt():
    """A fresh virtual clock placed 5 s before the 2**30 us wrap, installed into `time`."""
    return vtime.install(vtime.VirtualTime())


def pytest_configure(config):
    """In the dev profile, one random seed for the run unless --hypothesis-seed gave one."""
    if PROFILE == "ci":
        return
    if config.getoption("hypothesis_seed", None) is None:
        hypothesis_core.global_force_seed = random.SystemRandom().randrange(2**32)


def pytest_report_header(config):
    seed = hypothesis_core.global_force_seed
    if PROFILE == "ci":
        return "hypothesis: profile ci (derandomized, no database)"
    return "hypothesis: profile %s, seed %s" % (PROFILE, seed)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if exitstatus and PROFILE != "ci":
        terminalreporter.write_line(
            "hypothesis seed of this run: %s (make test HYPOTHESIS_SEED=%s draws the same)"
            % (hypothesis_core.global_force_seed, hypothesis_core.global_force_seed)
        )
