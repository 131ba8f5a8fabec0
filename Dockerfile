# syntax=docker/dockerfile:1
# Two stages. `build` installs the builder and turns DOCS_DIR into a bundle; the final stage
# installs only docsmcp-runtime[http] (numpy, pyarrow, uvicorn) and serves the bundle read-only.
#   docker build --build-arg DOCS_DIR=path/to/docs -t my-docs-mcp .
#   docker run -p 20310:20310 -e DOCSMCP_AUTH_TOKEN=secret my-docs-mcp
# tests/test_docker_stages.py replays every install and run step below in fresh virtual
# environments (CI has no Docker engine), so keep the commands in the shapes it recognises.
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY runtime/ runtime/
COPY builder/ builder/
COPY _build/ _build/
COPY pyproject.toml README.md ./
RUN python -m venv /opt/builder && /opt/builder/bin/pip install --no-cache-dir ./runtime .
ARG DOCS_DIR=examples/acme-sdk
COPY ${DOCS_DIR} /docs
RUN /opt/builder/bin/docsmcp build --docs-dir /docs --out /bundle

FROM ${PYTHON_IMAGE} AS runtime
COPY runtime/ /tmp/runtime/
RUN python -m venv /opt/docsmcp && /opt/docsmcp/bin/pip install --no-cache-dir "/tmp/runtime[http]"
RUN rm -rf /tmp/runtime && useradd --system --uid 10001 --no-create-home docsmcp
COPY --from=build /bundle /bundle
USER docsmcp
EXPOSE 20310
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["/opt/docsmcp/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:20310/healthz', timeout=2)"]
ENTRYPOINT ["/opt/docsmcp/bin/docsmcp-runtime", "--bundle", "/bundle"]
CMD ["--transport", "http", "--host", "0.0.0.0", "--port", "20310"]
