"""Fourth stage: the search structures of a bundle built from the chunks: the lexical (BM25) index
(`lexical`) and the browse tables of pages, sections, API entries and code blocks (`tables`).
"""
