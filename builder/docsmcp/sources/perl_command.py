"""A Perl distribution's commands without a suffix (Mojolicious's `script/mojo`, Dancer2's
`script/dancer2`): discovery goes by suffix, so this tells it which suffixless files are pages
(metacpan shows their POD as the command's page). Here, not in packages/perl_dist.py, because
discover.py asks while it walks and `sources/` imports nothing of `packages/`.
"""

from __future__ import annotations

import os
import re

MARKERS = ("Makefile.PL", "Build.PL", "dist.ini", "cpanfile", "META.json", "META.yml")
SCRIPT_FOLDERS = ("bin", "script", "scripts")
_HEAD = 65536  # bytes of a suffixless script read to tell a Perl command with POD
_SHEBANG = re.compile(rb"#![^\n]*\bperl[\d.]*\b")
_POD = re.compile(rb"^=(?:pod|head1|encoding)\b", re.M)


def is_command(real: str, name: str, folder: str) -> bool:
    """Whether the suffixless file `name` of the real folder `folder` is a distribution's
    command with POD (Mojolicious's `script/mojo`, Dancer2's `script/dancer2`): metacpan shows
    its POD as the command's page. It sits in the `bin/`, `script/` or `scripts/` folder of a
    distribution, starts with a Perl shebang and holds POD; any other suffixless file is none."""
    if "." in name or os.path.basename(folder) not in SCRIPT_FOLDERS:
        return False
    dist = os.path.dirname(folder)
    if not any(os.path.isfile(os.path.join(dist, m)) for m in MARKERS):
        return False
    try:
        with open(real, "rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return False
    return bool(_SHEBANG.match(head)) and _POD.search(head) is not None
