"""The shipped static table as a real ONNX sentence encoder, for tests with no torch (issue 29).

`write_graph` writes the static model (bundle-spec.md, *Static embeddings*) as an ONNX graph:
Gather the table rows of the input ids, a masked mean over the tokens (bracketed special tokens
weigh 0, as the static model drops them), L2 normalisation, output `sentence_embedding`.
`tokenizer_json` is a real `tokenizers` BERT WordPiece pipeline over the shipped vocabulary, so
graph plus tokenizer compute exactly `StaticModel.embed`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from docsmcp_runtime.format import TokenizerOptions
from docsmcp_runtime.search.static_model import StaticModel, parse_table, read_vocab
from onnx import TensorProto, helper, numpy_helper

DATA = Path(__file__).resolve().parents[1] / "builder" / "docsmcp" / "data"


def shipped_static_model() -> StaticModel:
    """The shipped default table, read the way a bundle's copy of it is."""
    meta = json.loads((DATA / "static_meta.json").read_text())
    vocab = read_vocab((DATA / "static_vocab.txt").read_bytes())
    raw = (DATA / "static_table.bin").read_bytes()
    table = parse_table(raw, len(vocab), meta["dimensions"], meta["encoding"])
    return StaticModel(vocab, table, TokenizerOptions(**meta["tokenizer"]))


def _table(static: StaticModel) -> np.ndarray:
    rows = static.rows.astype(np.float32)
    return rows * static.scales[:, None] if static.scales is not None else rows


def write_graph(
    path: Path,
    static: StaticModel,
    *,
    inputs: tuple[str, ...] = ("input_ids", "attention_mask"),
    output: str = "sentence_embedding",
) -> None:
    """The static model as an ONNX graph: (input_ids, attention_mask) -> [batch, dims]."""
    vocab = read_vocab((DATA / "static_vocab.txt").read_bytes())
    pooled = np.array([not (t.startswith("[") and t.endswith("]")) for t in vocab], np.float32)
    init = [
        numpy_helper.from_array(_table(static), "table"),
        numpy_helper.from_array(pooled, "pooled"),
        numpy_helper.from_array(np.array([1], np.int64), "axis1"),
        numpy_helper.from_array(np.array([-1], np.int64), "last"),
        numpy_helper.from_array(np.array(1e-12, np.float32), "eps"),
    ]
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["rows"]),  # [b, t, d]
        helper.make_node("Gather", ["pooled", "input_ids"], ["keep"]),  # [b, t]
    ]
    if "attention_mask" in inputs:
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["keep", "maskf"], ["weight"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["keep"], ["weight"]))
    nodes += [
        helper.make_node("Unsqueeze", ["weight", "last"], ["weight3"]),  # [b, t, 1]
        helper.make_node("Mul", ["rows", "weight3"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted", "axis1"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["weight3", "axis1"], ["count"], keepdims=0),  # [b, 1]
        helper.make_node("Max", ["count", "eps"], ["count1"]),
        helper.make_node("Div", ["summed", "count1"], ["mean"]),
        helper.make_node("Mul", ["mean", "mean"], ["square"]),
        helper.make_node("ReduceSum", ["square", "last"], ["sumsq"], keepdims=1),
        helper.make_node("Sqrt", ["sumsq"], ["norm"]),
        helper.make_node("Max", ["norm", "eps"], ["norm1"]),
        helper.make_node("Div", ["mean", "norm1"], [output]),
    ]
    graph = helper.make_graph(
        nodes,
        "static-model",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in inputs],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", static.dims])],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def tokenizer_json() -> str:
    """A BERT uncased tokenizer.json over the shipped vocabulary, padding configured (as many
    model files do: the encoder must turn it off)."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    vocab = read_vocab((DATA / "static_vocab.txt").read_bytes())
    ids = {t: i for i, t in enumerate(vocab)}
    tok = Tokenizer(WordPiece(ids, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.BertProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"]))
    tok.enable_padding(length=128, pad_id=ids["[PAD]"], pad_token="[PAD]")
    tok.enable_truncation(128)
    return tok.to_str()
