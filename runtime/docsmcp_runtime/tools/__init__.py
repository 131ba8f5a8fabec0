"""The MCP tool surface over one opened bundle: `app` (`DocsApp`, the tool handlers), `tooldefs`
(what `tools/list` shows), `toolargs` (argument validation and result envelopes), `searchcall`
(one `search_docs` call), `resources` (resources, prompts and completions) and `cursor` (signed
pagination cursors).
"""
