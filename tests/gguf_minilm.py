"""The packaged all-MiniLM-L6-v2 written as a GGUF file, for the tests of the `gguf` provider.

llama.cpp's own converter (convert_hf_to_gguf.py) needs torch and a llama.cpp checkout; this
writes the same keys and tensors (checked against that converter's output for this model) from
the safetensors file and vocab.txt with the `gguf` package alone: a BERT encoder, mean pooling,
WordPiece vocabulary in llama.cpp's "phantom space" form.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# The special tokens of BERT's vocabulary: control tokens, written without the phantom space.
SPECIALS = {
    "[PAD]": "padding",
    "[UNK]": "unknown",
    "[CLS]": "bos",
    "[SEP]": "eos",
    "[MASK]": "mask",
}
MEAN_POOLING = 1  # llama.cpp's LLAMA_POOLING_TYPE_MEAN, as sentence-transformers pools MiniLM


def write_minilm_gguf(model_dir: Path, out: Path, name: str = "all-MiniLM-L6-v2") -> Path:
    import gguf
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    tensors = load_file(model_dir / "model.safetensors")
    tokens = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    blocks = int(config["num_hidden_layers"])
    arch = gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT]
    writer = gguf.GGUFWriter(out, arch)
    writer.add_name(name)
    writer.add_block_count(blocks)
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType(MEAN_POOLING))
    writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("jina-v2-en")  # what convert_hf_to_gguf.py detects for MiniLM
    control, normal = gguf.TokenType.CONTROL, gguf.TokenType.NORMAL
    writer.add_token_list(
        [t if t in SPECIALS else (t[2:] if t.startswith("##") else "\u2581" + t) for t in tokens]
    )
    writer.add_token_types([control if t in SPECIALS else normal for t in tokens])
    ids = {t: i for i, t in enumerate(tokens)}
    writer.add_bos_token_id(ids["[CLS]"])
    writer.add_eos_token_id(ids["[SEP]"])
    writer.add_unk_token_id(ids["[UNK]"])
    writer.add_sep_token_id(ids["[SEP]"])
    writer.add_pad_token_id(ids["[PAD]"])
    writer.add_mask_token_id(ids["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    writer.add_add_sep_token(False)
    tokenizer = json.loads((model_dir / "tokenizer_config.json").read_text())
    writer.add_bool("tokenizer.ggml.normalizer.lowercase", bool(tokenizer["do_lower_case"]))
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, blocks)
    for key, value in tensors.items():
        if key in ("embeddings.position_ids",) or key.startswith("pooler."):
            continue  # not used for embeddings (the converter drops them too)
        mapped = names.get_name(key, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            raise ValueError(f"no GGUF name for tensor {key}")
        writer.add_tensor(mapped, np.ascontiguousarray(value, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
