"""One module per command of the `docsmcp` command line (parsed and dispatched by cli.py): build
and validate (`build`), `init`, `eval` (`evaluate`), `diff`, `watch`, `pack`, `push`, `verify`,
`export` (llms.txt), `cache`; `console` holds the program name and error line they print with.
"""
