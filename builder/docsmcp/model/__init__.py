"""The records that flow between the stages of the build, kept below every stage so each can import
them: a `SourceFile` and its `Problem`s and `Manifest` settings (`source`), the parsed blocks and
`Chunk`s of a page (`chunk`), API entries (`api`) and how their fields read from a section's
markdown (`api_fields`: the readers of source code and the API registry both use it), and the
text helpers their ids and summaries share (`text`).
"""
