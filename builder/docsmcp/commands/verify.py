"""`docsmcp verify`: check a bundle directory, archive or OCI layout against bundle-spec.md.

The checks are the runtime's own (`docsmcp_runtime.format.checks`), run in full: where the
runtime stops at the first reason to refuse a bundle, this reports every problem, adds the deep
invariants (dictionary and postings order, the chunk table, facets against chunk metadata) and
validates metadata.json against its JSON Schema.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jsonschema
from docsmcp_runtime.distribution.archive import (
    ArchiveSource,
    extract_archive,
    is_oci_layout,
    locate_archive,
    sidecar_path,
)
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import METADATA_FILE, Inspection

from docsmcp.commands.console import _err


@dataclass(frozen=True)
class Report:
    target: Path
    kind: str  # "bundle directory", "archive" or "OCI layout"
    problems: tuple[str, ...]
    summary: str  # what was checked, for the "ok:" line


def verify(target: Path) -> Report:
    """Verify a bundle directory, a bundle .tar.gz or an OCI layout holding one."""
    if target.is_dir() and not is_oci_layout(target):
        problems, summary = check_bundle(target)
        return Report(target, "bundle directory", tuple(problems), summary)
    kind = "OCI layout" if target.is_dir() else "archive"
    try:
        source = locate_archive(target)
    except BundleError as exc:
        return Report(target, kind, (str(exc),), "")
    assert source is not None
    with tempfile.TemporaryDirectory(prefix="docsmcp-verify-") as tmp:
        try:
            extract_archive(source, Path(tmp))
        except BundleError as exc:
            return Report(target, kind, (str(exc),), "")
        problems, summary = check_bundle(Path(tmp))
    return Report(target, kind, tuple(problems), f"{summary}; {_archive_note(source, kind)}")


def _archive_note(source: ArchiveSource, kind: str) -> str:
    if kind == "OCI layout":
        return f"layer sha256:{source.digest} matches the manifest"
    sidecar = sidecar_path(source.archive)
    if sidecar.is_file():
        return f"archive sha256:{source.digest} matches {sidecar.name}"
    return f"archive sha256:{source.digest} (no {sidecar.name} to compare with)"


# -- the bundle directory ------------------------------------------------------------------------


def check_bundle(root: Path) -> tuple[list[str], str]:
    """(problems, summary) for the bundle directory `root`; problems name the file concerned."""
    inspection = Inspection(root, hashes=True, deep=True)
    problems = [str(p) for p in inspection.problems()]
    if inspection.raw is not None:
        problems[1:1] = _schema_problems(inspection.raw)
    meta = inspection.metadata
    if meta is None:
        return problems, ""
    stats = meta.stats
    summary = (
        f"bundle {meta.bundle_id} ({meta.name}): {stats.chunks} chunks, "
        f"{stats.terms} terms, {stats.postings} postings; "
        f"{len(meta.files) + 1} files, sizes, sha256 and spec invariants checked"
    )
    return problems, summary


def _schema() -> dict:
    text = resources.files("docsmcp.schemas").joinpath("bundle-metadata.schema.json").read_text()
    return json.loads(text)


def _schema_problems(meta: dict) -> list[str]:
    """metadata.json against its JSON Schema: every violation, not only the first."""
    validator = jsonschema.Draft202012Validator(_schema())
    out = []
    for error in sorted(validator.iter_errors(meta), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        out.append(f"{METADATA_FILE}: {where}: {error.message} (schema)")
    return out


def _verify(args: argparse.Namespace) -> int:
    if not args.target.exists():
        _err(f"error: {args.target} does not exist")
        return 2
    report = verify(args.target)
    if report.problems:
        for problem in report.problems:
            print(problem, file=sys.stderr)
        _err(f"{len(report.problems)} problem(s) found in {report.kind} {args.target}")
        return 1
    print(f"ok: {args.target}: {report.summary}")
    return 0
