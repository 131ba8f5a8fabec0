"""Shortcodes of the Kubernetes website (Hugo + Docsy) whose text is another page's or the
site's (sources/sites/hugo_terms.py, hugo_includes.py's code samples and `includes` bundle), in the
shape of kubernetes/website's `content/en/docs`: glossary terms in `reference/glossary/`,
`{{% heading "whatsnext" %}}` from `data/i18n/en/en.toml`, `{{% code_sample %}}` from
`content/en/examples/`, prerequisites from `content/en/includes/`."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.sources.sites import hugo_gates, hugo_terms
from hypothesis import given
from hypothesis import strategies as st

SITE = {
    "hugo.toml": (
        'title = "Kubernetes"\ncontentDir = "content/en"\n\n[params]\nlatest = "v1.31"\n'
        'version = "v1.31"\n\n[languages]\n[languages.en]\n'
        'title = "Kubernetes"\ncontentDir = "content/en"\ni18nDir = "./data/i18n"\n'
    ),
    "data/i18n/en/en.toml": (
        '[whatsnext_heading]\nother = "What\'s next"\n\n'
        '[prerequisites_heading]\nother = "Before you begin"\n\n'
        '[feature_state]\nother = "FEATURE STATE:"\n\n'
        '[version_check_mustbeorlater]\nother = "Your Kubernetes server must be at or later than '
        'version "\n'
    ),
    "content/en/includes/task-tutorial-prereqs.md": (
        "You need to have a Kubernetes cluster, and the kubectl command-line tool must\n"
        "be configured to communicate with your cluster.\n"
    ),
    "content/en/examples/pods/simple-pod.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\n"
    ),
    "content/en/docs/reference/glossary/index.md": "---\ntitle: Glossary\n---\n",
    "content/en/docs/concepts/included/completion-bash.md": (
        "---\ntitle: bash auto-completion\nheadless: true\n---\n"
        "Source the completion script in your `~/.bashrc` file.\n"
    ),
    "content/en/docs/reference/glossary/node.md": (
        "---\ntitle: Node\nid: node\nshort_description: >\n  A node is a worker machine.\n"
        "---\n A node is a worker machine in Kubernetes.\n\n<!--more-->\n\n"
        'It runs {{< glossary_tooltip text="Pods" term_id="pod" >}} and is managed by the\n'
        "control plane.\n"
    ),
    "content/en/docs/reference/glossary/etcd.md": (
        "---\ntitle: etcd\nid: etcd\n---\n Consistent and highly-available key value store.\n"
        "\n<!--more-->\n\nIf your cluster uses etcd, back it up.\n"
    ),
    "content/en/docs/reference/command-line-tools-reference/feature-gates/SidecarContainers.md": (
        "---\ntitle: SidecarContainers\ncontent_type: feature_gate\n_build:\n  list: never\n"
        '  render: false\nstages:\n  - stage: alpha\n    fromVersion: "1.28"\n'
        '  - stage: beta\n    fromVersion: "1.29"\n---\nAllow sidecars.\n'
    ),
    "content/en/docs/concepts/pods.md": (
        "---\ntitle: Pods\ncontent_type: concept\nweight: 10\n"
        "min-kubernetes-server-version: v1.29\n---\n\n"
        "<!-- overview -->\n\n"
        'If a {{< glossary_tooltip term_id="node" >}} dies, its Pods go; a {{<\n'
        'glossary_tooltip text="control plane" term_id="control-plane" >}} decides.\n\n'
        '{{< feature-state for_k8s_version="v1.29" state="beta" >}}\n\n'
        '## {{% heading "prerequisites" %}}\n\n'
        '{{< include "task-tutorial-prereqs.md" >}} {{< version-check >}}\n\n'
        "## etcd\n\n"
        '{{< glossary_definition term_id="etcd" length="all" prepend="etcd is a" >}}\n\n'
        "## Sidecars\n\n"
        '{{< feature-state feature_gate_name="SidecarContainers" >}}\n\n'
        "A v{{< skew currentVersion >}} client works with v{{< skew currentVersionAddMinor -1 >}}"
        ' (apt repository {{< param "version" >}}).\n\n'
        "```shell\n"
        "curl -LO https://dl.k8s.io/release/v{{< skew currentPatchVersion >}}/kubectl\n```\n\n"
        "An example Pod:\n\n"
        '{{% code_sample file="pods/simple-pod.yaml" %}}\n\n'
        "```shell\n"
        '# {{< glossary_tooltip term_id="node" >}} stays in code\n'
        "```\n\n"
        '{{< tabs name="kubectl_autocompletion" >}}\n'
        '{{< tab name="Bash" include="included/completion-bash.md" />}}\n'
        "{{< /tabs >}}\n\n"
        '## {{% heading "whatsnext" %}}\n\n'
        "* Read about [Nodes](/docs/concepts/architecture/nodes/).\n"
    ),
}


def test_kubernetes_shortcodes_show_the_site_s_text(tmp_path: Path) -> None:
    site = write_tree(tmp_path / "website", SITE)
    bundle = build_bundle(site / "content" / "en" / "docs", tmp_path / "idx", "--source-root", site)
    text = page_texts(bundle)["concepts/pods.md"]
    for shown in (
        "If a Node dies, its Pods go; a control plane\n decides.",  # the term's title; lines kept
        "FEATURE STATE: `Kubernetes v1.29 [beta]`",
        "## Before you begin",
        "You need to have a Kubernetes cluster, and the kubectl",  # the `includes` bundle's
        "etcd is a consistent and highly-available key value store. If your cluster uses etcd",
        "FEATURE STATE: `Kubernetes v1.29 [beta]`",  # the gate's last stage
        "`pods/simple-pod.yaml`\n```yaml\napiVersion: v1\nkind: Pod\n",  # the example's file
        '# {{< glossary_tooltip term_id="node" >}} stays in code',
        "## What's next",
        # (the i18n file's strings; the page's least version)
        "Your Kubernetes server must be at or later than version v1.29. To check the version, "
        "enter `kubectl version`.",
        "A v1.31 client works with v1.30 (apt repository v1.31).",  # the site's params
        "curl -LO https://dl.k8s.io/release/v1.31.0/kubectl",  # in code too: what is copied
        "Bash\n\nSource the completion script in your `~/.bashrc` file.",  # the tab's file
    ):
        assert shown in text, shown
    assert "glossary tooltip" not in text and "heading " not in text
    assert "kubectl_autocompletion" not in text
    assert "{{<\n" not in text
    node = page_texts(bundle)["reference/glossary/node.md"]
    assert "It runs Pods and is managed" in node


_GATES = "content/en/docs/reference/command-line-tools-reference/feature-gates/"
_NEVER = "_build:\n  list: never\n  render: false\n"
MORE = {
    "data/i18n/en/en.toml": SITE["data/i18n/en/en.toml"]
    + '\n[note]\nother = "Note:"\n\n[thirdparty_message]\nother = """This section links to '
    'third party projects. Read the <a href="/docs/contribute/style/content-guide/">content '
    'guide</a> first. <a href="#third-party-content-disclaimer">More information.</a>"""\n\n'
    '[thirdparty_message_single_item]\nother = """&#128711; This item links to a third party '
    'project."""\n\n[feature_gate_stage_stable]\nother = "GA"\n',
    "content/en/docs/concepts/addons.md": (
        "---\ntitle: Addons\ncontent_type: concept\n---\n\n## Networking\n\n"
        "{{% thirdparty-content %}}\n\n* Calico is a networking provider.\n"
        '* Cilium {{% thirdparty-content single="true" %}} is another.\n\n'
        'Read the {{< api-reference page="workload-resources/pod-v1" >}} reference, its '
        '{{< api-reference page="workload-resources/pod-v1" anchor="PodSpec" >}} and the\n'
        '{{< api-reference page="workload-resources/job-v1" text="Job API" >}}.\n'
    ),
    "content/en/docs/reference/kubernetes-api/workload-resources/pod-v1.md": (
        '---\napi_metadata:\n  apiVersion: "v1"\n  kind: "Pod"\ntitle: "Pod"\n---\n\n'
        "## PodSpec\n\nPodSpec is a description of a pod.\n"
    ),
    _GATES + "index.md": (
        "---\ntitle: Feature Gates\n---\n\n### Feature gates for Alpha or Beta features\n\n"
        '{{< feature-gate-table include="alpha,beta" caption="Alpha or Beta" >}}\n\n'
        "### Feature gates for graduated or deprecated features\n\n"
        '{{< feature-gate-table include="ga,deprecated" >}}\n\n## List of feature gates\n\n'
        '{{< feature-gate-list include="alpha,beta,ga,deprecated" >}}\n\n'
        '## Removed\n\n{{< feature-gate-table show-removed="true" >}}\n\n'
        '```\n{{< feature-gate-list include="alpha" >}}\n```\n'
        '{{< feature-gate-description name="DryRun" >}}\n'
    ),
    _GATES + "DryRun.md": (
        f"---\ntitle: DryRun\ncontent_type: feature_gate\n{_NEVER}stages:\n"
        '  - stage: beta\n    defaultValue: true\n    fromVersion: "1.13"\n    toVersion: "1.18"\n'
        '  - stage: stable\n    defaultValue: true\n    fromVersion: "1.19"\n---\n'
        'Enable server-side dry run\nrequests ({{< glossary_tooltip term_id="node" >}}).\n'
    ),
    _GATES + "Accelerators.md": (
        f"---\ntitle: Accelerators\n{_NEVER}stages:\n  - stage: alpha\n"
        '    defaultValue: false\n    fromVersion: "1.6"\n    toVersion: "1.10"\n'
        "removed: true\n---\nAn early GPU plugin.\n"
    ),
    "content/en/docs/tasks/tools/included/verify-kubectl.md": (
        "---\ntitle: verify kubectl install\nheadless: true\n_build:\n  list: never\n"
        "  render: never\n  publishResources: false\n---\nRun `kubectl cluster-info`.\n"
    ),
    "content/en/docs/tasks/tools/install-kubectl.md": (
        "---\ntitle: Install kubectl\ncontent_type: task\n---\n\n"
        '{{< include "included/verify-kubectl.md" >}}\n'
    ),
    "content/en/docs/reference/demo/index.md": "---\nheadless: true\n---\nBundle.\n",
    "content/en/docs/reference/demo/part.md": "---\ntitle: Part\n---\nA resource.\n",
}


def test_third_party_notes_api_links_and_feature_gates_read_as_the_site_shows_them(
    tmp_path: Path,
) -> None:
    site = write_tree(tmp_path / "website", {**SITE, **MORE})
    bundle = build_bundle(site / "content" / "en" / "docs", tmp_path / "idx", "--source-root", site)
    texts = page_texts(bundle)
    addons = texts["concepts/addons.md"]
    for shown in (
        "**Note:** This section links to third party projects. Read the [content guide]"
        "(/docs/contribute/style/content-guide/) first.\n",  # (the foot's disclaimer: no link)
        "* Cilium \U0001f6c7 This item links to a third party project. is another.",
        "Read the [Pod](/docs/reference/kubernetes-api/workload-resources/pod-v1/) reference, "
        "its [PodSpec](/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec) and",
        "[Job API](/docs/reference/kubernetes-api/workload-resources/job-v1/).",
    ):
        assert shown in addons, shown
    gates = texts["reference/command-line-tools-reference/feature-gates/index.md"]
    for shown in (
        "| Feature | Default | Stage | Since | Until |\n|---|---|---|---|---|\n"
        "| `DryRun` | `true` | Beta | 1.13 | 1.18 |\n| `DryRun` | `true` | GA | 1.19 | – |",
        "- `DryRun`: Enable server-side dry run requests (Node).",  # (its shortcodes read too)
        "| Feature | Default | Stage | From | To |\n|---|---|---|---|---|\n"
        "| `Accelerators` | `false` | Alpha | 1.6 | 1.10 |",
        '```\n{{< feature-gate-list include="alpha" >}}\n```',  # (code: as written)
        "`DryRun`: Enable server-side dry run requests (Node).",
    ):
        assert shown in gates, shown
    # The alpha/beta table holds no graduated gate; the list no removed one.
    alpha_beta = gates.split("### Feature gates for Alpha or Beta features")[1].split("###")[0]
    assert "DryRun" not in alpha_beta and "- `Accelerators`" not in gates
    # What Hugo never renders is no page: the gates, `included/`, a headless bundle.
    assert not [p for p in texts if "feature-gates/" in p and not p.endswith("index.md")]
    assert not [p for p in texts if p.startswith(("tasks/tools/included/", "reference/demo/"))]
    assert "Run `kubectl cluster-info`." in texts["tasks/tools/install-kubectl.md"]


def _page(path: str, body: str) -> SourceFile:
    return SourceFile(path, body, body, Strategy("h2", 4000), (), None, None)


def test_a_glossary_term_no_page_defines_shows_its_id() -> None:
    body = (
        'A {{< glossary_tooltip term_id="custom-resource" >}} and '
        '{{< glossary_definition term_id="nothing" length="short" >}}.'
    )
    (out,) = hugo_terms.resolve([_page("a.md", body)], Path("/nonexistent"))
    assert out.body == "A custom resource and ."


_PIECES = st.sampled_from(
    ["{{<", "{{%", ">}}", "%}}", " glossary_tooltip", " heading", " feature-state", "\n",
     ' text="x"', ' term_id="node"', ' state="beta"', '"', "```", "`", " ", "<", ">"]
)  # fmt: skip


@FUZZ
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_pages_keep_their_lines_and_never_raise(body: str) -> None:
    terms = _page("glossary/node.md", "A node.\n\nMore.")
    out = hugo_terms.resolve([terms, _page("a.md", body)], Path("/nonexistent"))[1]
    assert out.body.count("\n") == body.count("\n")


_GATE_PIECES = st.sampled_from(
    ["{{<", "{{%", ">}}", "%}}", " feature-gate-table", " feature-gate-list", "\n",
     " feature-gate-description", ' include="alpha,ga"', ' show-removed="true"', ' name="A"',
     "```", " ", "/", "x"]
)  # fmt: skip


@FUZZ
@given(st.lists(_GATE_PIECES, max_size=30).map("".join))
def test_gate_shortcodes_keep_a_line_map_and_never_raise(body: str) -> None:
    stage = hugo_gates.Stage("beta", "true", "1.2", None)
    known = {"A": hugo_gates.Gate("A", (stage,), False, "Does a.")}
    out = hugo_gates.expand(_page("a.md", body), known, {}, hugo_terms._args)
    assert len(out.line_map or range(body.count("\n") + 1)) == out.body.count("\n") + 1
    assert set(out.line_map) <= set(range(body.count("\n") + 1))
