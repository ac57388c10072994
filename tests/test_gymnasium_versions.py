"""The environments on every gymnasium the project declares (the `rl` extra's `gymnasium>=1.2,<2`).

The test environment has gymnasium 1.2.2 (`ray[rllib]` 2.60.0 pins it). The newer releases
inside the range (1.3 and 1.4 today) are checked in a scratch virtual environment that sees
this one's packages (`--system-site-packages`) with only gymnasium replaced: the env,
PettingZoo and stable-baselines3 tests run there as they do here. Slow (about 2 minutes a
version, and it installs from the package registry): `python -m pytest -m slow
tests/test_gymnasium_versions.py`. The default run checks that the declared range holds the
versions named here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
#: the releases inside the declared range checked beside the installed one (1.2.2)
VERSIONS = ("1.3.0", "1.4.0")
#: the tests that use gymnasium's API: the envs, their wrappers and checkers, PettingZoo, SB3
TESTS = ("tests/test_envs.py", "tests/test_env_versions.py", "tests/test_pettingzoo_parallel.py",
         "tests/test_sb3.py", "tests/test_env_snapshot.py")


def _declared() -> Requirement:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["rl"]
    return next(Requirement(d) for d in deps if Requirement(d).name == "gymnasium")


def test_the_declared_range_holds_the_versions_checked_and_the_installed_one():
    import gymnasium

    req = _declared()
    assert str(req.specifier) in (">=1.2,<2", "<2,>=1.2"), req
    for v in (*VERSIONS, gymnasium.__version__):
        assert req.specifier.contains(v), v


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_the_env_tests_pass_on_a_newer_gymnasium(tmp_path, version):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    pip = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          f"gymnasium=={version}"], capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        pytest.skip(f"gymnasium {version} could not be installed here: {pip.stderr.strip()[-300:]}")
    got = subprocess.run([str(py), "-c", "import gymnasium; print(gymnasium.__version__)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert got == version
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([str(py), "-m", "pytest", "-q", "-m", "not slow", "-n", "0", "-p", "no:cacheprovider",
                        *TESTS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
