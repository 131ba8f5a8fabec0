# syntax=docker/dockerfile:1
# Multi-stage image: the build stage turns DOCS_DIR into a bundle, the runtime stage serves it
# with only docsmcp-runtime installed. (Streamable HTTP and health checks come with the
# deployment work; until then the image serves MCP over stdio.)
FROM python:3.11-slim AS build
WORKDIR /src
COPY runtime/ runtime/
COPY builder/ builder/
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir ./runtime .
ARG DOCS_DIR=examples/acme-sdk
COPY ${DOCS_DIR} /docs
RUN docsmcp build --docs-dir /docs --out /bundle

FROM python:3.11-slim
COPY runtime/ /tmp/runtime/
RUN pip install --no-cache-dir /tmp/runtime && rm -rf /tmp/runtime \
    && useradd --system --uid 10001 docsmcp
COPY --from=build /bundle /bundle
USER docsmcp
ENTRYPOINT ["docsmcp-runtime", "--bundle", "/bundle"]
