"""The Dockerfile, replayed without Docker (there is no engine on CI machines).

Each stage gets its own directory standing in for the image's filesystem; COPY, WORKDIR, ARG and
RUN are carried out with container paths mapped into it, so every install and run step of the
real Dockerfile runs in a fresh virtual environment. The final stage's entrypoint is then started
and its HEALTHCHECK command run against it, and the runtime environment is checked to hold none
of the builder's dependencies.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import REPO

BUILDER_ONLY = {
    "docsmcp",
    "markdown-it-py",
    "mdit-py-plugins",
    "pyyaml",
    "jsonschema",
    "mdurl",
    "docutils",
}


@dataclass
class Stage:
    name: str
    root: Path
    workdir: str = "/"
    args: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    exposed: list[str] = field(default_factory=list)

    def host(self, container_path: str) -> Path:
        path = (
            container_path if container_path.startswith("/") else f"{self.workdir}/{container_path}"
        )
        return self.root / path.lstrip("/")

    def map_paths(self, text: str) -> str:
        # Absolute container paths (not URLs) become paths under this stage's root.
        return re.sub(
            r"(?<![\w:/.])(/(?:opt|src|docs|bundle|tmp)\b[^\s'\"]*)",
            lambda m: str(self.host(m.group(1))),
            text,
        )


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    text = dockerfile.read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def run_shell(stage: Stage, command: str) -> None:
    parts = []
    for part in command.split("&&"):
        part = part.strip()
        if part.startswith("useradd"):
            continue  # needs root inside an image; the user only matters to Docker
        part = stage.map_paths(part)  # before the interpreter's own path is put in
        if part.startswith("python "):
            part = shlex.quote(sys.executable) + part[len("python") :]
        parts.append(part)
    cwd = stage.host(stage.workdir)
    cwd.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        " && ".join(parts), shell=True, cwd=cwd, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, (
        f"RUN {command!r} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    )


def expand(token: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], token)


def copy(src: Path, dest: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dest, dirs_exist_ok=True)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest if not str(dest).endswith("/") else dest / src.name)


def replay(dockerfile: Path, work: Path) -> dict[str, Stage]:
    stages: dict[str, Stage] = {}
    global_args: dict[str, str] = {}
    stage: Stage | None = None
    for word, rest in instructions(dockerfile):
        if word == "ARG":
            name, _, default = rest.partition("=")
            (stage.args if stage else global_args)[name] = default
        elif word == "FROM":
            name = rest.split(" AS ")[-1].strip() if " AS " in rest else str(len(stages))
            stage = Stage(name, work / name)
            stage.root.mkdir(parents=True)
            stages[name] = stage
        elif word == "WORKDIR":
            stage.workdir = rest
        elif word == "COPY":
            tokens = shlex.split(rest)
            source_root = REPO
            if tokens[0].startswith("--from="):
                source_root = stages[tokens.pop(0).split("=", 1)[1]].root
            *sources, dest = [expand(t, stage.args) for t in tokens]
            for src in sources:
                src_path = source_root / src.lstrip("/")
                target = stage.host(dest)
                if dest.endswith("/") and src_path.is_file():
                    target = target / src_path.name
                copy(src_path, target)
        elif word == "RUN":
            run_shell(stage, rest)
        elif word in ("ENTRYPOINT", "CMD"):
            setattr(stage, word.lower(), json.loads(rest))
        elif word == "HEALTHCHECK":
            stage.healthcheck = json.loads(rest[rest.index("CMD") + 3 :].strip())
        elif word == "EXPOSE":
            stage.exposed.append(rest)
        elif word != "USER":
            pytest.fail(f"test_docker_stages does not know the instruction {word}")
    return stages


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Stage]:
    return replay(REPO / "Dockerfile", tmp_path_factory.mktemp("docker"))


@pytest.mark.slow
def test_build_stage_produces_a_bundle(stages: dict[str, Stage]) -> None:
    meta = json.loads((stages["build"].host("/bundle") / "metadata.json").read_text())
    assert meta["format_version"] == 1 and meta["stats"]["files"] == 6
    assert (stages["runtime"].host("/bundle") / "metadata.json").read_text() == json.dumps(
        meta, indent=2, ensure_ascii=False
    ) + "\n"


@pytest.mark.slow
def test_runtime_environment_has_no_builder_dependencies(stages: dict[str, Stage]) -> None:
    pip = stages["runtime"].host("/opt/docsmcp/bin/pip")
    listed = json.loads(subprocess.check_output([pip, "list", "--format", "json"], text=True))
    names = {p["name"].lower() for p in listed}
    assert {"docsmcp-runtime", "numpy", "pyarrow", "uvicorn"} <= names
    assert not names & BUILDER_ONLY


@pytest.mark.slow
def test_runtime_stage_serves_and_passes_its_healthcheck(stages: dict[str, Stage]) -> None:
    rt = stages["runtime"]
    assert rt.exposed == ["20310"]
    port = free_port()
    argv = [rt.map_paths(a) for a in rt.entrypoint + rt.cmd]
    argv = [str(port) if a == "20310" else a for a in argv]
    argv = ["127.0.0.1" if a == "0.0.0.0" else a for a in argv]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        check = [rt.map_paths(a).replace("20310", str(port)) for a in rt.healthcheck]
        deadline = time.monotonic() + 30
        while True:
            proc = subprocess.run(check, capture_output=True, text=True, timeout=10)
            if proc.returncode == 0:
                break
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, proc.stderr
            time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert server.returncode == 0
    assert "Traceback" not in server.stderr.read()


def test_dockerfile_runs_as_non_root() -> None:
    words = instructions(REPO / "Dockerfile")
    final = words[max(i for i, (w, _) in enumerate(words) if w == "FROM") :]
    assert ("USER", "docsmcp") in final
