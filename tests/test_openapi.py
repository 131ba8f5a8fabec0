"""Mintlify API pages (`openapi: "GET /users/{id}"` frontmatter) rendered from their OpenAPI
document (formats/openapi.py): the operation is searchable and shown; `$ref` cycles, deep
nesting and huge schemas stay bounded; a page whose operation is not found is left as it is."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, write_tree
from docsmcp.sources.formats import openapi
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

SPEC = {
    "openapi": "3.1.0",
    "paths": {
        "/users/{id}": {
            "parameters": [{"$ref": "#/components/parameters/Id"}],
            "get": {
                "summary": "Get a user",
                "operationId": "getUser",
                "description": "Returns the user whose `id` is {id}, with their teams.",
                "parameters": [
                    {
                        "name": "expand",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The user.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/User"}}
                        },
                    },
                    "404": {"description": "No such user."},
                },
            },
        }
    },
    "components": {
        "parameters": {
            "Id": {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
        },
        "schemas": {
            "User": {
                "allOf": [{"$ref": "#/components/schemas/Named"}],
                "properties": {
                    "teams": {"type": "array", "items": {"$ref": "#/components/schemas/Team"}},
                    "manager": {"$ref": "#/components/schemas/User"},
                },
                "required": ["teams"],
            },
            "Named": {
                "properties": {"name": {"type": "string", "description": "Display name."}},
                "required": ["name"],
            },
            "Team": {"properties": {"slug": {"type": "string", "format": "slug"}}},
        },
    },
}
ADMIN = """openapi: 3.0.0
paths:
  /admins:
    post:
      summary: Create an admin
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [email]
              properties:
                email: {type: string, description: Where the invitation goes.}
      responses:
        "201": {description: Created.}
"""


def _docs(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "docs",
        {
            "openapi.json": json.dumps(SPEC),
            "specs/admin.yaml": ADMIN,
            "api/get-user.mdx": '---\ntitle: Get user\nopenapi: "GET /users/{id}"\n---\n\n'
            "<Info>Needs a token.</Info>\n",
            "api/create-admin.mdx": '---\ntitle: Create admin\nopenapi: "/specs/admin.yaml POST '
            '/admins"\n---\n',
            "api/gone.mdx": '---\ntitle: Gone\nopenapi: "DELETE /nowhere"\n---\n\nRemoved.\n',
        },
    )


def test_the_operation_is_rendered_from_the_document(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    roots = [docs]
    lines = openapi.render(docs, {"openapi": "GET /users/{id}"}, roots)
    assert lines is not None
    text = "\n".join(lines)
    assert "## GET `/users/{id}`\n\nOperation ID: `getUser`" in text
    assert "Returns the user whose `id` is `{id}`, with their teams." in text
    assert "- `id` (string, required)" in text  # a path-level parameter, through its $ref
    assert "- `expand` (string[])" in text
    assert "- `200`: The user." in text and "- `404`: No such user." in text
    assert "  - `name` (string, required): Display name." in text  # allOf, required
    assert "  - `teams` (array, required)" in text or "  - `teams` (object[], required)" in text
    assert "  - `teams.slug` (string (slug))" in text  # array items' fields, dotted
    assert "manager.manager.manager.manager" not in text  # the User -> User cycle is bounded
    yaml_lines = openapi.render(docs, {"openapi": "/specs/admin.yaml POST /admins"}, roots)
    assert "- `email` (string, required): Where the invitation goes." in "\n".join(yaml_lines)
    assert openapi.render(docs, {"openapi": "DELETE /nowhere"}, roots) is None
    assert openapi.render(docs, {"openapi": "not an operation"}, roots) is None


def test_search_and_get_doc_reach_the_operation(tmp_path: Path) -> None:
    out = build_bundle(_docs(tmp_path), tmp_path / "idx")
    with McpSession(out) as s:
        hits = s.search(query="invitation email admin", limit=1)["hits"]
        assert hits[0]["chunk_id"].startswith("api/create-admin.mdx#")
        page = json.loads(s.call("get_page", {"path": "api/get-user.mdx"}).content[0].text)
        assert "Needs a token." in page["text"] and "GET `/users/{id}`" in page["text"]
        gone = json.loads(s.call("get_page", {"path": "api/gone.mdx"}).content[0].text)
        assert gone["text"] == "Removed."  # no such operation: the page as it is
        # The operation is an entry of the API registry, named as SDKs call it.
        found = s.call("get_api_reference", {"method": "getUser"}).structured_content
        (entry,) = found["entries"]
        assert entry["signature"] == "GET /users/{id}" and entry["kind"] == "method"
        assert entry["description"] == "Get a user"
        assert [(p["name"], p["type"], p["required"]) for p in entry["parameters"]] == [
            ("id", "string", True),
            ("expand", "string[]", False),
        ]
        assert entry["returns"] == "200: The user."
        assert entry["chunk_id"] == "api/get-user.mdx#get-usersid"
        admin = s.call("get_api_reference", {"method": "POST /admins"}).structured_content
        assert admin["entries"][0]["parameters"][0]["name"] == "email"  # no operationId


def test_gitbook_openapi_blocks_render_their_local_document(tmp_path: Path) -> None:
    """GitBook writes `{% openapi src=... path=... method=... %}` blocks (Beefree's docs: 29),
    the document beside the page; one on the web is not fetched and stays as written."""
    docs = write_tree(
        tmp_path / "docs",
        {
            ".gitbook/assets/admin.yaml": ADMIN,
            "api/admins.md": "# Admins\n\nCreate one:\n\n"
            '{% openapi src="../.gitbook/assets/admin.yaml" path="/admins" method="post" %}\n'
            "[admin.yaml](../.gitbook/assets/admin.yaml)\n{% endopenapi %}\n\n"
            '{% openapi src="https://example.test/x.yaml" path="/x" method="get" %}\n'
            "{% endopenapi %}\n",
        },
    )
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        page = json.loads(s.call("get_page", {"path": "api/admins.md"}).content[0].text)
    assert "## POST `/admins`" in page["text"]
    assert "- `email` (string, required): Where the invitation goes." in page["text"]
    assert "{% openapi" not in page["text"] and "admin.yaml](" not in page["text"]
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "POST /admins"}).structured_content
    assert found["entries"][0]["chunk_id"].startswith("api/admins.md#")


def test_the_document_is_found_through_the_site_configuration(tmp_path: Path) -> None:
    """`openapi: "POST /admins"` names no document: docs.json's `openapi` entries do (a value
    of another type is passed over, not a crash)."""
    config = {"openapi": 5, "navigation": [{"group": "API", "openapi": ["/specs/admin.yaml"]}]}
    docs = write_tree(
        tmp_path / "docs", {"docs.json": json.dumps(config), "specs/admin.yaml": ADMIN}
    )
    lines = openapi.render(docs, {"openapi": "POST /admins"}, [docs])
    assert lines is not None and "## POST `/admins`" in lines


def test_a_huge_schema_is_bounded(tmp_path: Path) -> None:
    wide = {
        f"f{i}": {"type": "object", "properties": {"x": {"type": "string"}}} for i in range(900)
    }
    spec = {
        "paths": {
            "/w": {
                "post": {
                    "requestBody": {
                        "content": {"application/json": {"schema": {"properties": wide}}}
                    }
                }
            }
        }
    }
    docs = write_tree(tmp_path / "d", {"openapi.json": json.dumps(spec)})
    lines = openapi.render(docs, {"openapi": "POST /w"}, [docs])
    assert lines is not None
    assert sum(1 for x in lines if x.lstrip().startswith("- `")) <= openapi.MAX_FIELDS


_SCHEMA = st.recursive(
    st.sampled_from(
        [
            {"type": "string"},
            {"$ref": "#/components/schemas/S"},
            {"$ref": "#/x/y"},
            {},
            None,
            "a string",
            {"required": "a", "properties": ["x"], "allOf": {"y": 1}},  # wrong types
        ]
    ),
    lambda inner: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, min_size=1, max_size=3).map(
            lambda p: {"type": "object", "properties": p, "required": ["a"]}
        ),
        inner.map(lambda i: {"type": "array", "items": i}),
        st.lists(inner, min_size=1, max_size=2).map(lambda parts: {"allOf": parts}),
    ),
    max_leaves=12,
)


@FUZZ
@given(schema=_SCHEMA, shared=_SCHEMA, listed=st.booleans())
def test_any_schema_renders_without_error(tmp_path_factory, schema, shared, listed) -> None:
    # (`parameters:` left empty in YAML is null: Beefree's GitBook documents)
    parameters = [{"name": "q", "in": "query", "schema": schema}] if listed else None
    spec = {
        "paths": {
            "/p": {
                "parameters": None,
                "get": {
                    "parameters": parameters,
                    "responses": {"200": {"content": {"application/json": {"schema": schema}}}},
                },
            }
        },
        "components": {"schemas": {"S": shared}},
    }
    docs = tmp_path_factory.mktemp("spec")
    (docs / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    lines = openapi.render(docs, {"openapi": "GET /p"}, [docs])
    assert lines is not None and len(lines) < 600
