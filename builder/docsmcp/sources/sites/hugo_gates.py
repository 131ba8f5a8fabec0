"""Kubernetes' feature gates as its site shows them: each gate is a page of the
`feature-gates/` bundle (`title` its name, `stages` in its front matter, the body its
description) that Hugo never renders (`_build: {render: false}`); the site shows them through
three shortcodes of the feature-gates page, which read here as the site renders them:

- `{{< feature-gate-table include="alpha,beta" >}}`: a table of the gates still in alpha or
  beta (`include="ga,deprecated"`: those that graduated or are deprecated; `show-removed`: the
  removed ones), a row per stage: Feature, Default, Stage, Since, Until (the headers and stage
  names are the site's i18n strings).
- `{{< feature-gate-list include="alpha,beta,ga,deprecated" >}}`: an item per gate with a stage
  named (`ga` is `stable`), "`Name`: its description".
- `{{< feature-gate-description name="DryRun" >}}`: "`DryRun`: its description".

Before, the three read as their names' words ("feature gate table") and the 338 gate pages
were pages of their own, which the site never serves. A shortcode on a line of its own becomes
the lines it shows (the line map repeats its line); one elsewhere, inside code, or of a gate no
page defines is left to the other shortcode readers.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.markdown.fences import fenced_lines

# A feature-gate shortcode alone on its line (group 1: its name, group 2: its arguments).
GATE_SHORTCODE = re.compile(
    r"^[ \t]*\{\{[<%]\s*feature-gate-(table|list|description)\b"
    r"([^{}\n]{0,400}?)\s*/?[>%]\}\}[ \t]*$"
)
_MORE = re.compile(r"<!--\s*more\s*-->")
# The site's English strings (its i18n file says them first).
_STRINGS = {
    "feature_gate_table_header_feature": "Feature",
    "feature_gate_table_header_default": "Default",
    "feature_gate_table_header_stage": "Stage",
    "feature_gate_table_header_since": "Since",
    "feature_gate_table_header_until": "Until",
    "feature_gate_table_header_from": "From",
    "feature_gate_table_header_to": "To",
    "feature_gate_stage_alpha": "Alpha",
    "feature_gate_stage_beta": "Beta",
    "feature_gate_stage_stable": "GA",
    "feature_gate_stage_deprecated": "Deprecated",
}


@dataclasses.dataclass(frozen=True)
class Stage:
    stage: str  # alpha, beta, stable, deprecated
    default: str | None  # `defaultValue` as written (None: not set)
    since: str
    until: str | None


@dataclasses.dataclass(frozen=True)
class Gate:
    name: str
    stages: tuple[Stage, ...]
    removed: bool
    description: str  # the page's body on one line, markdown

    def state(self) -> str:
        """The gate's current state as `feature-state` shows it: "Kubernetes v1.30 [stable]"."""
        last = self.stages[-1]
        return f"Kubernetes v{last.since} [{last.stage}]"


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value).strip()


def _one_line(markdown: str) -> str:
    """A page's body as one line (what `markdownify` shows inside a list item or a paragraph)."""
    body = _MORE.sub("\n", markdown)
    return " ".join(line.strip() for line in body.split("\n") if line.strip())


def gates(files: Sequence[SourceFile]) -> dict[str, Gate]:
    """The feature gates by name: pages under a folder named `feature-gates` with `stages` in
    their front matter (the first page of a name wins)."""
    out: dict[str, Gate] = {}
    for sf in sorted(files, key=lambda f: f.path):
        if "/feature-gates/" not in f"/{sf.path}" or "stages" not in sf.frontmatter:
            continue
        try:
            front = json.loads(sf.frontmatter)
        except ValueError:
            continue
        stages = front.get("stages") if isinstance(front, dict) else None
        if not isinstance(stages, list):
            continue
        read = tuple(
            Stage(
                _text(s.get("stage")),
                _text(s["defaultValue"]) if "defaultValue" in s else None,
                _text(s.get("fromVersion")),
                _text(s["toVersion"]) if "toVersion" in s else None,
            )
            for s in stages
            if isinstance(s, Mapping)
        )
        name = _text(front.get("title"))
        if read and name:
            removed = front.get("removed") in (True, "true")
            out.setdefault(name, Gate(name, read, removed, _one_line(sf.body)))
    return out


def _table(
    known: Mapping[str, Gate], args: Mapping[str, str], t: Callable[[str], str]
) -> list[str]:
    """`feature-gate-table`'s rows (the site's template: a gate's stages, one row each)."""
    removed = bool(args.get("show-removed"))
    include = args.get("include", "")
    alpha_beta = "alpha" in include or "beta" in include
    head = ("feature", "default", "stage", "from" if removed else "since")
    head += ("to" if removed else "until",)
    rows = [
        "| " + " | ".join(t(f"feature_gate_table_header_{h}") for h in head) + " |",
        "|" + "---|" * len(head),
    ]
    for gate in sorted(known.values(), key=lambda g: g.name):
        if removed != gate.removed:
            continue
        graduated = any(s.stage in ("stable", "deprecated") for s in gate.stages)
        if not removed and alpha_beta == graduated:
            continue
        for s in gate.stages:
            default = f"`{s.default}`" if s.default is not None else "–"
            stage = t(f"feature_gate_stage_{s.stage}")
            until = s.until if s.until is not None else "–"
            rows.append(f"| `{gate.name}` | {default} | {stage} | {s.since} | {until} |")
    return rows


def _list(known: Mapping[str, Gate], args: Mapping[str, str]) -> list[str]:
    """`feature-gate-list`'s items: the gates with a stage `include` names (`ga`: stable)."""
    removed = bool(args.get("show-removed"))
    include = args.get("include", "")
    out = []
    for gate in sorted(known.values(), key=lambda g: g.name):
        shown = any((s.stage == "stable" and "ga" in include) or s.stage in include
                    for s in gate.stages if s.stage)  # fmt: skip
        if gate.removed:
            shown = removed
        if shown and gate.description:
            out.append(f"- `{gate.name}`: {gate.description}")
    return out


def shown(
    name: str,
    args: Mapping[str, str],
    known: Mapping[str, Gate],
    strings: Mapping[str, str],
) -> list[str] | None:
    """The lines the shortcode `feature-gate-<name>` called with `args` shows (None: a gate
    no page defines, left as written)."""
    if name == "description":
        gate = known.get(args.get("name", ""))
        if gate is None:
            return None
        return [f"`{gate.name}`: {gate.description}"] if gate.description else []
    if name == "list":
        return _list(known, args)
    return _table(known, args, lambda key: strings.get(key) or _STRINGS.get(key, key))


def expand(
    sf: SourceFile,
    known: Mapping[str, Gate],
    strings: Mapping[str, str],
    parse: Callable[[str], dict[str, str]],
) -> SourceFile:
    """`sf` with each feature-gate shortcode on a line of its own (outside code) replaced by
    the lines it shows; `parse` reads a shortcode's arguments."""
    lines = sf.body.split("\n")
    if not any("feature-gate-" in line for line in lines):
        return sf
    code = fenced_lines(lines)
    line_map = sf.line_map or tuple(range(len(lines)))
    body: list[str] = []
    mapped: list[int] = []
    for k, line in enumerate(lines):
        m = None if code[k] else GATE_SHORTCODE.match(line)
        new = shown(m.group(1), parse(m.group(2)), known, strings) if m else None
        new = [line] if new is None else new or [""]
        body += new
        mapped += [line_map[k]] * len(new)
    if body == lines:
        return sf
    return dataclasses.replace(sf, body="\n".join(body), line_map=tuple(mapped))
