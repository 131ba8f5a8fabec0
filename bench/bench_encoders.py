"""ONNX query encoders (issue 29): what exporting, shipping and serving each one costs.

For each sentence-transformers model directory and each weight encoding (f32, int8) this exports
the query encoder with `docsmcp.embeddings.onnx_export`, then measures the runtime side in a
fresh child process (no torch in it, as in the server): session load time, RSS before and after
load, and query-embedding latency at one thread over 50 short queries after a warm-up. It also
compares the ONNX vectors with `SentenceTransformer.encode` (with the model's query prompt).
Figures only: nothing here is a unit test, and timings depend on the machine.

    /work/venv/bin/python bench/bench_encoders.py                      # the packaged MiniLM
    /work/venv/bin/python bench/bench_encoders.py --model /path/to/embeddinggemma --dims 768 256

Columns: export (s, torch export + int8 quantisation and its agreement check), onnx (MB of the
one .onnx file), agree (min cosine int8-vs-f32 over onnx_export.SAMPLE_QUERIES, what decides
int8; 1 for f32), vs ST (min cosine of the ONNX vector to SentenceTransformer.encode over the 50
bench queries), load (s, OnnxQueryEncoder construction: tokenizer + onnxruntime session),
RSS base/loaded (MB, VmRSS of the child after importing numpy, onnxruntime and tokenizers, and
after loading), p50/p95 (ms per query embedding, one thread), sha256 (of the .onnx file: the
same model gives the same bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "builder"), str(REPO / "runtime")]

# Short developer queries, none of them in onnx_export.SAMPLE_QUERIES.
QUERIES = [
    "create a payment intent",
    "refund a charge",
    "list invoices for a customer",
    "webhook retries",
    "idempotency key header",
    "rate limit headers",
    "python async client",
    "typescript types for responses",
    "set request timeout",
    "retry with exponential backoff",
    "pagination with cursors",
    "upload an image",
    "download a file as a stream",
    "OAuth client credentials",
    "refresh an access token",
    "API versioning",
    "error codes list",
    "404 not found on delete",
    "validation error details",
    "sandbox vs production",
    "logging requests",
    "custom headers on every request",
    "proxy support",
    "self-signed certificates",
    "SDK installation with npm",
    "go module import path",
    "java maven dependency",
    "configure base url",
    "environment variables",
    "list users",
    "delete a user",
    "update email address",
    "search with filters",
    "sort results by date",
    "batch requests",
    "websocket events",
    "server-sent events streaming",
    "cancel a request",
    "connection pooling",
    "debug mode",
    "unit testing with mocks",
    "changelog breaking changes",
    "deprecated endpoints",
    "null vs undefined fields",
    "date time format",
    "currency amounts in cents",
    "metadata key value pairs",
    "expand nested objects",
    "links.createMany",
    "Client.with_options(max_retries=5)",
]
WARMUP = 5


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1000
    return float("nan")


def child(args: argparse.Namespace) -> None:
    """Runtime side, in its own process: only numpy, onnxruntime and tokenizers."""
    import onnxruntime  # noqa: F401  (imported before the baseline RSS: the extra's cost)
    import tokenizers  # noqa: F401
    from docsmcp_runtime.search.onnx_encoder import EncoderSpec, OnnxQueryEncoder

    spec = EncoderSpec(**json.loads(args.spec))
    base = rss_mb()
    started = time.perf_counter()
    encoder = OnnxQueryEncoder(Path(args.onnx), Path(args.tokenizer), spec, threads=1)
    load = time.perf_counter() - started
    loaded = rss_mb()
    for q in QUERIES[:WARMUP]:
        encoder.embed(q)
    times, vectors = [], []
    for q in QUERIES:
        started = time.perf_counter()
        vectors.append(encoder.embed(q))
        times.append((time.perf_counter() - started) * 1000)
    np.save(args.vectors, np.stack(vectors))
    print(json.dumps({"load": load, "base": base, "loaded": loaded, "ms": times}))


def run_child(onnx: Path, tokenizer: Path, spec: dict, vectors: Path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, __file__, "--child", "--onnx", str(onnx), "--tokenizer"]
    cmd += [str(tokenizer), "--spec", json.dumps(spec), "--vectors", str(vectors)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def st_vectors(model_dir: Path) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    prompt = "query" if "query" in (getattr(model, "prompts", None) or {}) else None
    return model.encode(QUERIES, prompt_name=prompt, normalize_embeddings=True)


def _label(model_dir: Path) -> str:
    # Packaged models live in a folder named "model" inside their package.
    return model_dir.parent.name if model_dir.name == "model" else model_dir.name


def bench_model(
    model_dir: Path, dims: list[int | None], out: Path, encodings: list[str]
) -> list[dict]:
    from docsmcp.embeddings.onnx_export import export_query_encoder

    reference = st_vectors(model_dir)
    rows = []
    for weights in encodings:
        for d in dims:
            started = time.perf_counter()
            exported = export_query_encoder(model_dir, dimensions=d, quantize=weights == "int8")
            export_s = time.perf_counter() - started
            folder = out / f"{_label(model_dir)}-{weights}-{d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "model.onnx").write_bytes(exported.model)
            (folder / "tokenizer.json").write_bytes(exported.tokenizer)
            spec = exported.spec.__dict__
            figures = run_child(
                folder / "model.onnx", folder / "tokenizer.json", spec, folder / "q.npy"
            )
            got = np.load(folder / "q.npy")
            ref = reference[:, : exported.spec.dimensions]
            ref = ref / np.linalg.norm(ref, axis=1, keepdims=True)
            ms = np.asarray(figures["ms"])
            rows.append(
                {
                    "model": _label(model_dir),
                    "dims": exported.spec.dimensions,
                    "weights": exported.weights,
                    "asked": weights,
                    "export_s": export_s,
                    "onnx_mb": len(exported.model) / 1e6,
                    "sha256": hashlib.sha256(exported.model).hexdigest(),
                    "agree": exported.agreement,
                    "vs_st": float(np.min(np.sum(got * ref, axis=1))),
                    "load_s": figures["load"],
                    "rss_base": figures["base"],
                    "rss_loaded": figures["loaded"],
                    "p50": float(np.percentile(ms, 50)),
                    "p95": float(np.percentile(ms, 95)),
                }
            )
            print(_row(rows[-1]), flush=True)
    return rows


HEADER = (
    "| model | dims | weights | export s | onnx MB | agree | vs ST | load s | RSS base/loaded MB "
    "| p50 ms | p95 ms | sha256 |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _row(r: dict) -> str:
    weights = r["weights"] if r["weights"] == r["asked"] else f"{r['weights']} (asked int8)"
    return (
        f"| {r['model']} | {r['dims']} | {weights} | {r['export_s']:.1f} | {r['onnx_mb']:.1f} "
        f"| {r['agree']:.4f} | {r['vs_st']:.4f} | {r['load_s']:.2f} "
        f"| {r['rss_base']:.0f}/{r['rss_loaded']:.0f} | {r['p50']:.2f} | {r['p95']:.2f} "
        f"| {r['sha256'][:12]} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, action="append", help="sentence-transformers dir")
    parser.add_argument("--dims", type=int, nargs="*", help="Matryoshka dimensions to measure")
    parser.add_argument(
        "--weights", nargs="*", default=["f32", "int8"], choices=["f32", "int8"], help="encodings"
    )
    parser.add_argument("--out", type=Path, help="keep the exported files here")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    for name in ("--onnx", "--tokenizer", "--spec", "--vectors"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    logging.basicConfig(level=logging.WARNING, format="  %(message)s")
    # Which int8 variant each export tried, and its agreement.
    logging.getLogger("docsmcp.embeddings.onnx_export").setLevel(logging.INFO)
    if not args.model:
        from docsmcp_runtime.search.embedding import packaged_model_dir

        args.model = [packaged_model_dir()]
    dims: list[int | None] = list(args.dims) if args.dims else [None]
    with tempfile.TemporaryDirectory(prefix="bench-encoders-") as tmp:
        out = args.out or Path(tmp)
        print(HEADER, flush=True)
        rows = [r for m in args.model for r in bench_model(m, dims, out, args.weights)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
