"""AsciiDoc (Asciidoctor, Antora) read into markdown."""
