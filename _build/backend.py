"""The build backend of the root distribution (`docsmcp`, the builder): setuptools, except that
when a wheel is built from a source checkout the builder's dependency on the runtime points at
the checkout's own `runtime/` folder, so `pip install .` works with the runtime on no index.

Editable builds keep the pin `docsmcp-runtime==VERSION`: a direct URL could not be satisfied by
an editable runtime, and `pip install -e ./runtime -e .` (the developer's install) must work.
`pip install ./runtime .` works too: both name the same folder."""

from __future__ import annotations

import re
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - the PEP 517 hooks this module re-exports

_ROOT = Path(__file__).resolve().parent.parent
_RUNTIME = _ROOT / "runtime"
# The builder's own dependencies (one per line); the runtime's line is added at build time.
_BASE = _ROOT / "_build" / "requirements.in"
_REQUIREMENTS = _ROOT / "_build" / "requirements.txt"  # generated, read by setuptools


def _write_requirement(direct: bool = True) -> None:
    version = re.search(r'^version = "([^"]+)"', (_ROOT / "pyproject.toml").read_text(), re.M)
    assert version is not None, "pyproject.toml has no version"
    if direct and (_RUNTIME / "pyproject.toml").is_file():
        runtime = f"docsmcp-runtime @ {_RUNTIME.as_uri()}"
    else:
        runtime = f"docsmcp-runtime=={version.group(1)}"
    _REQUIREMENTS.write_text(_BASE.read_text() + runtime + "\n")


def get_requires_for_build_wheel(config_settings=None):  # noqa: ANN001, ANN201
    _write_requirement()
    return _setuptools.get_requires_for_build_wheel(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):  # noqa: ANN001, ANN201
    _write_requirement()
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: ANN001, ANN201
    _write_requirement()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_editable(config_settings=None):  # noqa: ANN001, ANN201
    _write_requirement(direct=False)
    return _setuptools.get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):  # noqa: ANN001, ANN201
    _write_requirement(direct=False)
    return _setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: ANN001, ANN201
    _write_requirement(direct=False)
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
