"""The browse tables of a bundle (bundle-spec.md, *Browse tables*), loaded on first use: `pages`
(the page tree and `get_page`), `sections` (section and rule ids, cross references), `apiref`
(the API registry of `get_api_reference`) and `examples` (the code blocks of
`get_code_examples`).
"""
