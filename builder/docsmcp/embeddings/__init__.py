"""Fifth stage (optional): vectors for the chunks. Provider options and the provider registry
(`embed`), the providers themselves (`providers_static`, `providers_st`, `providers_openai`),
vectorising with the embedding cache (`vectorize`, `embed_cache`), and the static tables: making
one (`static_table`, also `python -m docsmcp.embeddings.static_table`), adapting it to a corpus
(`adapt`) and fine-tuning (`finetune`, with training pairs mined from a bundle in `pairs`).
"""
