"""Build every judged real site as a user would, then score it page by page.

Each site in `sites/NAME.json` names a public repository, the commit its judgments were made on
and its docs folder; `cases/NAME.jsonl` holds its judged queries. For each site this copies the
docs out of a git mirror (or a clone), runs `docsmcp init --write` and `docsmcp build` exactly as
a new user would (no hand-written manifest), then scores all sites in one `docsmcp eval --pages`
run. The sites' text never enters this repository: only our queries and judgments do.

    python bench/sites/run.py --out /tmp/sites-head                  # every site
    python bench/sites/run.py --out /tmp/sites-x --code /tmp/tree-x  # another tree's code
    python bench/sites/compare.py /tmp/sites-head /tmp/sites-x       # what moved

Sources: `--mirrors DIR` holds bare repositories as `DIR/OWNER+NAME/repo` (what this team's
`fetch` tool writes; default `$DOCSMCP_MIRRORS` or /work/.mirror); `--clone` clones missing ones
from GitHub into `OUT/repos` instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Site:
    name: str
    repo: str
    commit: str
    docs: str
    source_root: str | None


def load_sites(only: list[str]) -> list[Site]:
    sites = []
    for path in sorted((HERE / "sites").glob("*.json")):
        raw = json.loads(path.read_text())
        if only and raw["name"] not in only:
            continue
        if not (HERE / "cases" / f"{raw['name']}.jsonl").is_file():
            continue
        sites.append(
            Site(
                raw["name"],
                raw["repo"],
                raw["commit"],
                raw["docs"].strip("/"),
                raw.get("source_root"),
            )
        )
    missing = set(only) - {s.name for s in sites}
    if missing:
        sys.exit(f"run.py: no site or no cases for {', '.join(sorted(missing))}")
    return sites


def git_dir(site: Site, mirrors: Path, out: Path, clone: bool) -> Path:
    """The bare repository holding the site's commit: a mirror, or a fresh clone."""
    key = site.repo.replace("/", "+")
    mirror = mirrors / key / "repo"
    if mirror.is_dir():
        return mirror
    if not clone:
        raise RuntimeError(f"no mirror {mirror}; fetch github:{site.repo} or pass --clone")
    target = out / "repos" / key
    if not target.is_dir():
        url = f"https://github.com/{site.repo}.git"
        subprocess.run(["git", "clone", "-q", "--bare", url, str(target)], check=True)
    return target


def extract(site: Site, repo: Path, into: Path) -> Path:
    """The docs folder (the whole tree when pages read files beside it) at the judged commit."""
    if into.exists():
        subprocess.run(["rm", "-rf", str(into)], check=True)
    into.mkdir(parents=True)
    paths = [] if site.source_root else [site.docs]
    archive = subprocess.run(
        ["git", "--git-dir", str(repo), "archive", site.commit, *paths],
        capture_output=True,
        check=False,
    )
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    else:  # a mirror may lack some blobs (large images): every file it has, one by one
        _extract_present(repo, site.commit, paths, into)
    return into / site.docs


def _extract_present(repo: Path, commit: str, paths: list[str], into: Path) -> None:
    """The files of `commit` under `paths` whose blobs the repository holds, through one
    `git cat-file --batch`; symlinks as symlinks."""
    listing = subprocess.run(
        ["git", "--git-dir", str(repo), "ls-tree", "-r", "-z", commit, "--", *paths],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    entries = []
    for line in filter(None, listing):
        meta, _, name = line.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, name.decode()))
    batch = subprocess.run(
        ["git", "--git-dir", str(repo), "cat-file", "--batch"],
        input=b"".join(sha + b"\n" for _, sha, _ in entries),
        capture_output=True,
        check=True,
    ).stdout
    at = 0
    for mode, _, name in entries:
        end = batch.index(b"\n", at)
        header = batch[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        body, at = batch[at : at + size], at + size + 1
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            target.symlink_to(body.decode())
        else:
            target.write_bytes(body)


def docsmcp(code: Path | None) -> tuple[list[str], dict[str, str]]:
    """The builder command: the installed one, or another tree's code through PYTHONPATH."""
    env = dict(os.environ)
    if code is None:
        return [str(Path(sys.executable).with_name("docsmcp"))], env
    env["PYTHONPATH"] = os.pathsep.join([str(code / "builder"), str(code / "runtime")])
    return [sys.executable, "-c", "import sys; from docsmcp.cli import main; sys.exit(main())"], env


def build(site: Site, args: argparse.Namespace) -> Path:
    work = args.out / site.name
    repo = git_dir(site, args.mirrors, args.out, args.clone)
    docs = extract(site, repo, work / "tree")
    roots = ["--source-root", str(work / "tree")] if site.source_root else []
    command, env = docsmcp(args.code)
    idx = work / "idx"
    with open(work / "build.log", "w") as log:
        for step in (
            ["init", "--docs-dir", str(docs), "--write", "--force", *roots],
            [
                "build",
                "--docs-dir",
                str(docs),
                "--out",
                str(idx),
                "--name",
                site.name,
                *roots,
                *args.build_args.split(),
            ],
        ):
            log.write(f"$ docsmcp {' '.join(step)}\n")
            log.flush()
            done = subprocess.run([*command, *step], stdout=log, stderr=subprocess.STDOUT, env=env)
            if done.returncode != 0:
                raise RuntimeError(f"docsmcp {step[0]} failed; see {work / 'build.log'}")
    return idx


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, required=True, help="working folder (bundles, eval.json)"
    )
    parser.add_argument("--sites", default="", help="comma-separated site names (default: all)")
    parser.add_argument("--code", type=Path, help="a source tree whose builder/runtime to use")
    parser.add_argument(
        "--mirrors", type=Path, default=Path(os.environ.get("DOCSMCP_MIRRORS", "/work/.mirror"))
    )
    parser.add_argument(
        "--clone", action="store_true", help="clone missing repositories from GitHub"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--bundles-from",
        type=Path,
        help="score the bundles an earlier run built (its --out) instead of building: for a "
        "change to the runtime alone (--code still chooses the runtime)",
    )
    parser.add_argument(
        "--build-args",
        default="",
        help="more `docsmcp build` flags, e.g. '--embedding-provider static'",
    )
    args = parser.parse_args()
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    sites = load_sites([s for s in args.sites.split(",") if s])

    bundles: dict[str, Path] = {}
    if args.bundles_from is not None:
        for site in sites:
            idx = args.bundles_from.resolve() / site.name / "idx"
            if (idx / "metadata.json").is_file():
                bundles[site.name] = idx
            else:
                print(f"{site.name}: no bundle in {idx}", file=sys.stderr)
    else:
        with ThreadPoolExecutor(args.workers) as pool:
            found = pool.map(lambda s: _try(build, s, args), sites)
            for site, result in zip(sites, found, strict=True):
                if isinstance(result, Exception):
                    print(f"{site.name}: {result}", file=sys.stderr)
                else:
                    bundles[site.name] = result
    cases = args.out / "cases.jsonl"
    with open(cases, "w") as merged:
        for name in sorted(bundles):
            merged.write((HERE / "cases" / f"{name}.jsonl").read_text())
    command, env = docsmcp(args.code)
    flags = [f for name, idx in sorted(bundles.items()) for f in ("--bundle", f"{name}={idx}")]
    report = subprocess.run(
        [*command, "eval", *flags, "--cases", str(cases), "--pages", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if report.returncode != 0:
        print(report.stderr, file=sys.stderr)
        return 1
    (args.out / "eval.json").write_text(report.stdout)
    print(summary(json.loads(report.stdout)))
    return 0 if len(bundles) == len(sites) else 1


def _try(function, *args):
    try:
        return function(*args)
    except Exception as error:  # one site's failure is reported, the others still run
        return error


def summary(report: dict) -> str:
    """Page-level MRR/nDCG (and section MRR) per site and category, then overall."""
    pages = report["pages"]
    lines = [f"{'':24} {'pages MRR':>9} {'nDCG':>6} {'sect MRR':>9}  cases"]
    for group in ("by_corpus", "by_category"):
        for key in sorted(pages[group]):
            p, s = pages[group][key], report[group][key]
            lines.append(f"{key:24} {p['mrr']:9.3f} {p['ndcg']:6.3f} {s['mrr']:9.3f}  {p['cases']}")
        lines.append("")
    p, s = pages["overall"], report["overall"]
    lines.append(f"{'overall':24} {p['mrr']:9.3f} {p['ndcg']:6.3f} {s['mrr']:9.3f}  {p['cases']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
