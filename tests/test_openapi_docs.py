"""API pages of docusaurus-plugin-openapi-docs (formats/openapi_docs.py): the operation their
frontmatter holds is shown and searchable, as the site shows it.

Agenta's docs hold 520 such `.api.mdx` pages; read as MDX they kept their description and the
word "Request", and no endpoint, parameter, body field or response. The fixture is written in
the plugin's shape (its components, the `api` frontmatter as the plugin encodes it)."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

from conftest import build_bundle, write_tree
from docsmcp.sources.formats.openapi import operation_lines
from docsmcp.sources.formats.openapi_docs import MAX_API_BYTES, api_operation
from mcp_client import McpSession

NULLABLE_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}]}
MIXED_ITEMS = {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
OPERATION = {
    "tags": ["Pets"],
    "description": "Upload a photo of a pet to its album.",
    "operationId": "upload_pet_photo",
    "parameters": [
        {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}},
        {"name": "caption", "in": "query", "schema": NULLABLE_STRING},
    ],
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["url"],
                    "properties": {
                        "url": {"type": "string", "description": "Where the photo is hosted."},
                        "tags": {"anyOf": [MIXED_ITEMS, {"type": "null"}]},
                    },
                }
            }
        },
    },
    "responses": {
        "201": {
            "description": "Photo stored",
            "content": {
                "application/json": {
                    "schema": {"type": "object", "properties": {"photoId": {"type": "string"}}}
                }
            },
        },
        "404": {"description": "No such pet"},
    },
    "method": "post",
    "path": "/pets/{petId}/photos",
}


def encoded(data: object) -> str:
    """A value as the plugin writes `api:`: JSON, deflated, base64."""
    return base64.b64encode(zlib.compress(json.dumps(data).encode())).decode()


def page(api: str) -> str:
    return f"""---
id: upload-pet-photo
title: "Upload a pet photo"
description: "Upload a photo of a pet to its album."
sidebar_label: "Upload a pet photo"
hide_title: true
api: {api}
sidebar_class_name: "post api-method"
info_path: docs/api/petstore
custom_edit_url: null
---

import MethodEndpoint from "@theme/ApiExplorer/MethodEndpoint";
import ParamsDetails from "@theme/ParamsDetails";
import RequestSchema from "@theme/RequestSchema";
import StatusCodes from "@theme/StatusCodes";
import Heading from "@theme/Heading";
import Translate from "@docusaurus/Translate";

<Heading
  as={{"h1"}}
  className={{"openapi__heading"}}
  children={{"Upload a pet photo"}}
>
</Heading>

<MethodEndpoint
  method={{"post"}}
  path={{"/pets/{{petId}}/photos"}}
  context={{"endpoint"}}
>

</MethodEndpoint>

Upload a photo of a pet to its album.

<Heading
  id={{"request"}}
  as={{"h2"}}
  className={{"openapi-tabs__heading"}}
>
  <Translate id="theme.openapi.request.title">Request</Translate>
</Heading>

<ParamsDetails
  {{...require("./upload-pet-photo.ParamsDetails.json")}}
>

</ParamsDetails>

<RequestSchema title={{"Body"}} body={{undefined}} />

<StatusCodes
  {{...require("./upload-pet-photo.StatusCodes.json")}}
>

</StatusCodes>
"""


def test_the_operation_in_the_frontmatter_is_the_page(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "api/upload-pet-photo.api.mdx": page(encoded(OPERATION)),
            "api/upload-pet-photo.ParamsDetails.json": '{"parameters": []}',
            "api/pets.tag.mdx": "---\nid: pets\ntitle: Pets\n---\n\nEverything about pets.\n",
        },
    )
    with McpSession(build_bundle(docs, tmp_path / "idx")) as s:
        hit = s.search(query="upload pet photo caption petId", limit=3)["hits"][0]
        assert hit["filepath"] == "api/upload-pet-photo.api.mdx"
        doc = s.get_doc(hit["chunk_id"], context=5)
        entry = s.call("get_api_reference", {"method": "upload_pet_photo"}).structured_content
    (entry,) = entry["entries"]
    assert entry["signature"] == "POST /pets/{petId}/photos" and entry["category"] == "Pets"
    assert [p["name"] for p in entry["parameters"]] == ["petId", "caption", "url", "tags"]
    assert entry["returns"] == "201: Photo stored"
    assert entry["chunk_id"] == "api/upload-pet-photo.api.mdx#post-petspetidphotos"
    assert "## POST `/pets/{petId}/photos`" in doc
    assert "Operation ID: `upload_pet_photo`" in doc
    assert "- `petId` (integer, required)" in doc
    assert "- `caption` (string | null)" in doc
    assert "- `url` (string, required): Where the photo is hosted." in doc
    assert "- `tags` ((string | integer)[] | null)" in doc
    assert "- `201`: Photo stored" in doc and "  - `photoId` (string)" in doc
    assert "- `404`: No such pet" in doc
    assert doc.count("Upload a photo of a pet to its album.") == 1  # the body's, not again
    assert "Request" not in doc.replace("Request body", "")  # the components' text is gone
    assert "require(" not in doc and "<" not in doc


def test_a_value_that_is_no_operation_leaves_the_page_as_it_is(tmp_path: Path) -> None:
    bomb = base64.b64encode(zlib.compress(b" " * (MAX_API_BYTES + 1))).decode()
    values = {
        "not base64": "not*base64!",
        "not deflated": base64.b64encode(b"plain text, no zlib stream").decode(),
        "no operation": encoded({"method": "fetch", "path": "/x"}),
        "a list": encoded([1, 2]),
        "too large": bomb,
    }
    for value in values.values():
        assert api_operation({"api": value}) is None
    assert api_operation({"api": encoded(OPERATION)}) == OPERATION
    files = {f"api/p{i}.api.mdx": page(v) for i, v in enumerate(values.values())}
    docs = write_tree(tmp_path / "docs", files)
    with McpSession(build_bundle(docs, tmp_path / "idx")) as s:
        doc = s.get_doc("api/p0.api.mdx#_preamble")
    assert "Upload a photo of a pet to its album." in doc and "## POST" not in doc


def test_a_choice_of_schemas_names_its_types_and_fields() -> None:
    operation = {
        "responses": {
            "200": {
                "description": "OK",
                "content": {
                    "application/json": {
                        "schema": {
                            "anyOf": [
                                {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                                {"type": "null"},
                            ]
                        }
                    }
                },
            }
        }
    }
    spec = {"components": {"schemas": {"Pet": {"properties": {"name": {"type": "string"}}}}}}
    lines = operation_lines("get", "/pets", operation, spec)
    assert "  - `name` (string)" in lines
