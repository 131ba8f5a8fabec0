"""What a server offers beside its tools, over one bundle: `resources` (every page and section as
a `docs://` resource, and the template that names them), `prompts` (search-and-cite,
explain-page) and `completions` (of the template's path and of the prompts' arguments).
"""
