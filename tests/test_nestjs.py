"""NestJS's docs (docs.nestjs.com, formats/markdown/nestjs.py): its renderer shows a code block's
`@@filename(x)` as the file's name and `@@switch` as a TS/JS toggle showing TypeScript, a quote's
`> info **Hint**` as a box reading "Hint", and `{{ '{' }}` as a brace. 630 markers, 578 class
words and 87 interpolations showed in the site's chunks."""

from __future__ import annotations

from pathlib import Path

from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.dialects import rewrite

PAGE = """### Controllers

A controller with a route:

```typescript
@@filename(cats.controller)
import { Controller, Get } from '@nestjs/common';

@Controller('cats')
export class CatsController {}
@@switch
import { Controller, Bind } from '@nestjs/common';

@Controller('cats')
export class CatsController {}
```

> info **Hint** Use the `@Res({{ '{' }} passthrough: true {{ '}' }})` decorator.

> warning **Warning** Not both.

```typescript
@@filename()
const app = await NestFactory.create(AppModule);
```

```bash
$ echo "{{ '{' }}" # code is left as written
```

> Note **this**: other quotes keep their words, and `{{ 'name' }}` is a template's code.
"""


def test_nestjs_code_blocks_show_the_file_name_and_the_typescript(tmp_path: Path) -> None:
    (tmp_path / "controllers.md").write_text(PAGE, encoding="utf-8")
    (chunk,) = chunk_file(load_corpus(tmp_path).files[0])
    text = chunk.text
    assert "@@" not in text and "{{" not in text.split("```bash")[0]
    assert "cats.controller.ts\n```typescript\nimport { Controller, Get }" in text
    assert "Bind" not in text  # (the JavaScript translation, behind the toggle)
    assert "> **Hint** Use the `@Res({ passthrough: true })` decorator." in text
    assert "> **Warning** Not both." in text
    assert "```typescript\nconst app = await NestFactory.create(AppModule);\n```" in text
    assert "$ echo \"{{ '{' }}\"" in text
    assert "> Note **this**: other quotes keep their words, and `{{ 'name' }}` is a" in text


def test_nestjs_markers_keep_the_lines() -> None:
    lines = PAGE.split("\n")
    out = rewrite(lines)
    assert len(out.display) == len(out.parse) == len(lines)
    assert out.display[4:7] == ["cats.controller.ts", "```typescript", lines[6]]
    assert out.display[10] == "```" and not any(out.display[11:16])
