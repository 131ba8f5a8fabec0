"""docsmcp: build read-only documentation index bundles for the docsmcp MCP runtime.

The folders read in the order of a build: cli.py parses the command line and hands it to
commands/; pipeline/ runs a build (pipeline/build.py), whose stages are sources/ (find and read
the docs, one module per input format), chunking/, enrich/ (API registry, section ids, cross
references), indexing/ (lexical index, browse tables), embeddings/ (optional vectors) and
bundle/ (writing the bundle). model/ holds the records that flow between the stages and common/
the helpers they all use.
"""

__version__ = "0.1.0"
