"""The build itself, stage by stage; start here to follow the flow. `collect` loads the corpus and
has every file parsed, chunked and enriched by `workers` (in worker processes, per file: sources ->
chunking -> enrich -> indexing records), reusing what `parse_cache` kept from the last build and
skipping files `known_files` knows unchanged; `build` runs collect, then indexes, embeds and writes
the bundle.
"""
