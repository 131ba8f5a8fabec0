"""R Markdown (`.Rmd`, `.Rmarkdown`: pkgdown articles, bookdown books, blogdown posts) read as
the page knitr and pandoc render of it, without running R.

knitr finds code chunks line by line, whatever markdown fences surround them (hence bookdown's
`` `r ''````{r} `` trick to show a chunk's syntax): a line ```` ```{r label, echo=FALSE} ````
opens a chunk, a line of backticks alone closes it. The page shows:

- a chunk's source as a fenced block of its engine's language (`{r}` -> `r`, `{Rcpp}` -> `cpp`),
  without its `#|` option lines; no output (it is computed). `echo=FALSE` or `include=FALSE`
  (`#| echo: false`) shows nothing, or the figure's caption when `fig.cap` is a string.
  Options that are R expressions count as shown, but `knitr::is_latex_output()` (an HTML page).
- `block`/`block2` chunks as pandoc divs (`type='rmdnote'` a Note callout, read by
  fenced_divs.div_label like `::: {.rmdnote}`), `asis` chunks as their markdown.
- inline `` `r expr` ``: a string literal as its text (`` `r ''` `` nothing), any other
  expression as inline code (its value is computed; the expression is what the page is about).
- bookdown: `\\@ref(label)` as the label (the page shows the number it gets; a section's a
  link to it, resolved in whichever chapter holds it: xref_resolve), `(\\#eq:x)` and
  `(ref:x) text` definitions as nothing (the definition's text stands where `(ref:x)` is used
  in a `fig.cap`), `\\index{term}` and `\\mainmatter`-like lines as nothing (LaTeX only);
  `# Preface {-}` is unnumbered (dialects' attribute lists); `# (PART) Basics {-}` and
  `# (APPENDIX) Appendix {-}` divide the book's table of contents, no chapter.

Quarto's `.qmd` pages run code chunks of the same syntax (```` ```{python} ```` with `#|`
options): they are read the same way, without bookdown's syntax.

Every line keeps its number (a hidden line is blank), so hits point into the `.Rmd` file. A
`README.Rmd` beside its knitted `README.md` is the source of that page, not a page, nor are
roxygen2's fragments under `man/` (`not_pages`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from docsmcp.model.text import split_top
from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import code_span, fenced_lines

RMARKDOWN_SUFFIXES = (".rmd", ".rmarkdown")
# knitr's chunk header and end (knitr::all_patterns$md)
_START = re.compile(r"^([\t >]*)(`{3,})\s*\{([a-zA-Z0-9_]+)((?:[ ,].*)?)\}\s*$")
_END = re.compile(r"^[\t >]*`{3,}\s*$")
_INLINE = re.compile(r"`r[ #]([^`]+)\s*`")
_R_STRING = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
_IF_OUTPUT = re.compile(
    r"^\s*if\s*\(\s*(!?)\s*(?:knitr::)?is_(html|latex)_output\(\)\s*\)\s*"
    rf"({_R_STRING})(?:\s*else\s*({_R_STRING}))?\s*$",
    re.DOTALL,
)
_STRING = re.compile(r"""^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$""")
_OPTION_LINE = re.compile(r"^[\t >]*#\|\s*([\w.-]+)\s*:\s*(.*)$")
_REF = re.compile(r"\\@ref\(([^()\s]+)\)")
_LABEL = re.compile(r"\s*\(\\#[\w:.-]+\)")
_TEXT_REF = re.compile(r"^\(ref:([\w:.-]+)\)\s+(.*)$")
# LaTeX commands on a line of their own that an HTML page never shows (pandoc drops raw TeX)
_LATEX_ONLY = re.compile(
    r"^[ \t]*\\(?:mainmatter|frontmatter|backmatter|appendix|newpage|clearpage|cleardoublepage"
    r"|pagebreak|noindent|printindex|tableofcontents|listoffigures|listoftables)[ \t]*$"
)
# bookdown's part dividers, `# (PART) Basics {-}` and `# (APPENDIX) Appendix {-}`: a line of
# the book's table of contents, not a chapter (the chapter's title is the next h1)
_PART = re.compile(r"^\((?:PART\*?|APPENDIX)\)")
_INDEX = re.compile(r"\\index\{(?:[^{}]|\{[^{}]*\})*\}")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_DIV = re.compile(r"^([ ]{0,3}:{3,}[ \t]*)\{\.(rmd(note|tip|warning|caution|important))\}[ \t]*$")
_LANGUAGES = {"rcpp": "cpp", "rscript": "r", "node": "js", "javascript": "js"}
_CALLOUT = re.compile(r"""\btype\s*=\s*["']rmd(note|tip|warning|caution|important)["']""")


def is_rmarkdown(path: str) -> bool:
    return path.lower().endswith(RMARKDOWN_SUFFIXES)


def not_pages(paths: Iterable[str]) -> frozenset[str]:
    """The R Markdown files among `paths` that are no page of the site: the source of a knitted
    markdown file beside it (`README.Rmd` -> `README.md`, `post.Rmarkdown` -> `post.markdown`),
    and roxygen2's fragments in a package's `man/` (`man/rmd/by.Rmd`, pasted into the Rd files
    by `@includeRmd`)."""
    paths = list(paths)
    have = {p.lower() for p in paths}
    rd_folders = {posixpath.dirname(p) for p in paths if p.lower().endswith(".rd")}
    out = set()
    for path in paths:
        if not is_rmarkdown(path):
            continue
        stem, ext = posixpath.splitext(path)
        twin = ".markdown" if ext.lower() == ".rmarkdown" else ".md"
        parts = path.split("/")[:-1]
        man = [k for k, part in enumerate(parts) if part == "man"]
        if (stem + twin).lower() in have or any(
            "/".join(parts[: k + 1]) in rd_folders for k in man
        ):
            out.add(path)
    return frozenset(out)


def _split_options(text: str) -> list[str]:
    """A chunk header's options at top-level commas (quotes and brackets kept whole)."""
    return [part.strip() for part in split_top(text) if part.strip()]


def _options(header: str, body: list[str]) -> dict[str, str]:
    """The chunk's options (`echo = FALSE` and `#| echo: false` alike), values as written."""
    found: dict[str, str] = {}
    for part in _split_options(header):
        key, eq, value = part.partition("=")
        if eq:
            found[key.strip()] = value.strip()
    for line in body:
        m = _OPTION_LINE.match(line)
        if m is None:
            break
        found[m.group(1)] = m.group(2).strip()
    return found


def _shown(value: str | None) -> bool:
    """Whether an option that may be an R expression is true on an HTML page."""
    if value is None:
        return True
    v = value.strip().strip("'\"").lower()
    if v in ("false", "f", "no", "0"):
        return False
    if "is_latex_output" in v or "is_pdf" in v:
        return v.startswith("!")
    if "is_html_output" in v:
        return not v.startswith("!")
    return True


def _string(value: str | None) -> str | None:
    """The text of an R string literal, None for any other expression."""
    m = _STRING.match(value or "")
    if m is None:
        return None
    text = m.group(1) if m.group(1) is not None else m.group(2)
    return re.sub(r"\\x60", "`", text).replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")


def _evaluate(expr: str) -> str | None:
    """What inline R code shows on an HTML page, where that is known without R: a string
    literal, or `if (knitr::is_html_output()) '...'` (bookdown's `# References {-}` line)."""
    literal = _string(expr)
    if literal is not None:
        return literal
    m = _IF_OUTPUT.match(expr)
    if m is None:
        return None
    html = (m.group(2) == "html") != bool(m.group(1))
    chosen = m.group(3) if html else m.group(4)
    return "" if chosen is None else _string(chosen)


def _inline(text: str) -> str:
    """`text` with its inline R code as the page shows it, as many lines as it had (an
    expression spanning lines is read whole, as knitr reads it)."""

    def value(m: re.Match[str]) -> str:
        shown = _evaluate(m.group(1))
        if shown is None:
            shown = code_span(m.group(1).strip())
        lines = m.group(0).count("\n")
        if shown.count("\n") != lines:
            shown = " ".join(shown.split("\n")) + "\n" * lines
        return shown

    return _INLINE.sub(value, text) if "`r" in text else text


def _outside_code(line: str, rewrite: object) -> str:
    """`line` with `rewrite` (a str -> str function) applied outside its code spans."""
    assert callable(rewrite)
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        out += [rewrite(line[at : m.start()]), m.group(0)]
        at = m.end()
    out.append(rewrite(line[at:]))
    return "".join(out)


def _ref(m: re.Match[str]) -> str:
    """`\\@ref(label)`: a section's id as a link to it (xref finds it in any chapter of the
    book), a figure's, table's or equation's (`fig:x`) as its name (their numbers are
    computed)."""
    label = m.group(1)
    prefix, colon, rest = label.partition(":")
    if colon and prefix.isalpha() and len(prefix) <= 4:
        return rest
    return f"[{label}](#{label})"


def _bookdown(line: str) -> str:
    if "\\" not in line:
        return line
    line = _REF.sub(_ref, line)
    line = _LABEL.sub("", line)
    return _INDEX.sub("", line)


def knit(lines: list[str], book: bool = True) -> list[str]:
    """The lines of an R Markdown page as the markdown knitr writes of them, one for one; with
    bookdown's syntax when `book` (Quarto pages: chunks and inline code only, `book=False`)."""
    refs = {m.group(1): m.group(2) for line in lines if (m := _TEXT_REF.match(line))}
    out = list(lines)
    k, n = 0, len(lines)
    while k < n:
        start = _START.match(lines[k])
        if start is None:
            text_end = k + 1  # the text up to the next chunk: its inline code, read whole
            while text_end < n and not _START.match(lines[text_end]):
                text_end += 1
            shown = _inline("\n".join(lines[k:text_end])).split("\n")
            out[k:text_end] = shown if len(shown) == text_end - k else lines[k:text_end]
            k = text_end
            continue
        end = k + 1
        while end < n and not _END.match(lines[end]):
            end += 1
        _chunk(out, k, end, start, refs)
        k = end + 1
    if not book:
        return out
    fenced = fenced_lines(out)
    for k, line in enumerate(out):
        if fenced[k]:
            continue
        heading = ATX.match(line) if line.startswith("#") else None
        if (
            _TEXT_REF.match(line)
            or _LATEX_ONLY.match(line)
            or (heading and _PART.match(heading.group(2)))
        ):
            out[k] = ""  # a text reference's definition is shown where it is used
            continue
        div = _DIV.match(line)
        if div:
            out[k] = f"{div.group(1)}{{.callout-{div.group(3)}}}"
            continue
        out[k] = _outside_code(line, _bookdown)
    return out


def _chunk(out: list[str], first: int, last: int, start: re.Match[str], refs: dict) -> None:
    """Rewrite the chunk of lines first..last (last: its closing line, or past the end)."""
    indent, fence, engine, header = start.groups()
    body_end = min(last, len(out))
    body = out[first + 1 : body_end]
    options = _options(header, body)
    engine_l = engine.lower()
    lines = range(first, min(last + 1, len(out)))
    if engine_l in ("block", "block2", "asis"):
        shown = _shown(options.get("echo")) and _shown(options.get("include"))
        if engine_l == "asis" or not shown:
            for k in lines:
                out[k] = out[k] if shown and first < k < body_end else ""
            return
        kind = _CALLOUT.search(header)
        cls = f".callout-{kind.group(1)}" if kind else ".block"
        out[first] = f"{indent}::: {{{cls}}}"
        if last < len(out):
            out[last] = f"{indent}:::"
        return
    if not (_shown(options.get("echo")) and _shown(options.get("include"))):
        caption = _string(options.get("fig.cap"))
        if caption and caption.startswith("(ref:") and caption.endswith(")"):
            caption = refs.get(caption[5:-1], caption)  # a text reference's text
        for k in lines:
            out[k] = ""
        if caption and _shown(options.get("include")):
            out[first] = f"{indent}{_outside_code(caption, _bookdown)}"
        return
    # knitr strips `#|` options from the source it shows: the fence opens on the last of them
    # (the lines before it blank), so the block holds only the code
    k = first + 1
    while k < body_end and _OPTION_LINE.match(out[k]):
        k += 1
    for blank in range(first, k - 1):
        out[blank] = ""
    out[k - 1] = f"{indent}{fence}{_LANGUAGES.get(engine_l, engine_l)}"
