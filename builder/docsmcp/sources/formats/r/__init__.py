"""R documentation: .Rd reference pages (pkgdown) and R Markdown."""
