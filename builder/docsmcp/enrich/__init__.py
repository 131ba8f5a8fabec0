"""Third stage: what the build extracts from the parsed pages beside their chunks: the API registry
(`apiref`, reading fields with model/api_fields.py), section numbers and rule ids
(`section_ids`), one-line summaries (`summary`), and cross references found per file (`xref`)
then resolved across the corpus (`xref_resolve`).
"""
