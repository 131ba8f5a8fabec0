"""One Kotlin declaration, one section, as Dokka shows it: a multiplatform module's `expect` and
`actual`s, and a declaration written again in each platform's source set, are one section and
one API entry with its platforms named; an `override` without KDoc shows the overridden
member's text. The fixture is written in the shape of InsertKoinIO/koin's `koin-core`
(`src/commonMain/kotlin`, `jvmMain`, `jsMain`, `nativeMain`; `object GlobalContext :
KoinContext` in each platform, `expect object KoinPlatformTools`)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.kotlin_merge import Merge, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

CONTEXT = """package org.kin.core.context

import org.kin.core.Kin

/**
 * Component that holds the Kin instance
 */
interface KinContext {
    /**
     * Get Kin instance
     * @throws IllegalStateException
     */
    fun get(): Kin

    /**
     * Start a Kin Application as StandAlone
     */
    fun startKin(app: KinApplication): KinApplication
}
"""

GLOBAL = """package org.kin.core.context

import org.kin.core.Kin

/**
 * Global context - current Kin Application available globally
 */
object GlobalContext : KinContext {

    private var _kin: Kin? = null

    override fun get(): Kin = _kin ?: error("KinApplication has not been started")

    override fun startKin(app: KinApplication): KinApplication = synchronized(this) {
        app
    }
%s}
"""

EXTRA = """
    fun getKinApplicationOrNull(): KinApplication? = null
"""

TOOLS_EXPECT = """package org.kin.mp

expect object KinPlatformTools {
    fun getStackTrace(e: Exception): String

    /** The platform's default context. */
    fun defaultContext(): KinContext
}
"""

TOOLS_ACTUAL = """package org.kin.mp

actual object KinPlatformTools {
    /** Stack trace of [e], as the %s platform prints it. */
    actual fun getStackTrace(e: Exception): String = e.toString()

    actual fun defaultContext(): KinContext = GlobalContext
}
"""

HELPER = """package org.kin.mp

/** Reads a property of the %s platform. */
fun readProperty(name: String): String? = null
"""


def _tree(tmp_path: Path) -> Path:
    core = "projects/core/kin-core/src"
    return write_tree(
        tmp_path / "kin",
        {
            "settings.gradle.kts": 'include(":kin-core")\n',
            "projects/core/kin-core/build.gradle.kts": (
                "kotlin {\n  jvm()\n  js()\n}\n"
                'apply(from = file("../../gradle/publish.gradle.kts"))\n'
            ),
            f"{core}/commonMain/kotlin/org/kin/core/context/KinContext.kt": CONTEXT,
            f"{core}/jvmMain/kotlin/org/kin/core/context/GlobalContext.kt": GLOBAL % EXTRA,
            f"{core}/jsMain/kotlin/org/kin/core/context/GlobalContext.kt": GLOBAL % "",
            f"{core}/nativeMain/kotlin/org/kin/core/context/GlobalContext.kt": GLOBAL % "",
            f"{core}/commonMain/kotlin/org/kin/mp/KinPlatformTools.kt": TOOLS_EXPECT,
            f"{core}/jvmMain/kotlin/org/kin/mp/KinPlatformTools.kt": TOOLS_ACTUAL % "JVM",
            f"{core}/jsMain/kotlin/org.kin.mp/PlatformTools.kt": TOOLS_ACTUAL % "JS",
            f"{core}/jvmMain/kotlin/org/kin/mp/Props.kt": HELPER % "JVM",
            f"{core}/jsMain/kotlin/org/kin/mp/Props.kt": HELPER % "JS",
        },
    )


def test_platform_copies_are_one_section_and_one_entry(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    core = "projects/core/kin-core/src"
    # The platforms' copies of GlobalContext are one page: the one with the most members.
    shown = [p for p in pages if p.endswith("GlobalContext.kt")]
    assert shown == [f"{core}/jvmMain/kotlin/org/kin/core/context/GlobalContext.kt"]
    page = pages[shown[0]]
    assert page.count("**Platforms:** js, jvm, native") == 1  # (once, on the type)
    # An override without KDoc shows the overridden member's, as Dokka does.
    start = page.index("## GlobalContext.startKin")
    assert "Start a Kin Application as StandAlone" in page[start:]
    assert "Get Kin instance" in page[page.index("## GlobalContext.get") :]
    api = ApiRegistry(open_bundle(out))
    assert len(api.lookup("GlobalContext.startKin")) == 1
    assert len(api.lookup("GlobalContext")) == 1
    (get,) = [api.spec(i) for i in api.lookup("GlobalContext.get")]
    assert get["description"] == "Get Kin instance"
    # An expect without KDoc takes its actual's; its platforms are named.
    tools = pages[f"{core}/commonMain/kotlin/org/kin/mp/KinPlatformTools.kt"]
    assert "**Platforms:** common, js, jvm" in tools
    assert "Stack trace of `e`, as the JS platform prints it." in tools  # (sets by name)
    assert not any("PlatformTools.kt" in p and "commonMain" not in p for p in pages)
    # A top-level function written in two platforms: one entry.
    assert len(api.lookup("readProperty")) == 1
    assert sum("Props.kt" in p for p in pages) == 1


def test_one_platform_module_is_unchanged(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "one",
        {
            "build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "src/main/kotlin/org/kin/Kin.kt": (
                "package org.kin\n\n/** The container. */\nclass Kin\n"
            ),
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    assert "**Platforms:**" not in page_texts(out)["src/main/kotlin/org/kin/Kin.kt"]


@given(st.text(max_size=300))
@FUZZ
def test_merge_line_round_trips_and_never_fails(text: str) -> None:
    merge = Merge(frozenset({text}), {text: (text,)}, {text: text})
    body, read = split("class A\n" + merge.encode())
    assert body == "class A" and read == merge
    split(text)  # (any text: no error)


def test_hostile_trees_end(tmp_path: Path) -> None:
    """Supertypes naming each other in a ring, 40 supertypes each, and 3,000 members written
    in two platforms: the pass ends, each type looked at once."""
    ring = "\n".join(
        f"interface I{k} : {', '.join(f'I{(k + j) % 40}' for j in range(1, 40))} {{\n"
        "    fun f(): Int\n}"
        for k in range(40)
    )
    members = "\n".join(f"    fun m{k}(): Int = {k}" for k in range(3000))
    core = "src"
    root = write_tree(
        tmp_path / "ring",
        {
            "build.gradle.kts": "kotlin { jvm(); js() }\n",
            f"{core}/commonMain/kotlin/r/Ring.kt": "package r\n\n"
            + ring
            + "\n\nclass C : I0 {\n    override fun f(): Int = 1\n}\n",
            f"{core}/jvmMain/kotlin/r/Big.kt": f"package r\n\nobject Big {{\n{members}\n}}\n",
            f"{core}/jsMain/kotlin/r/Big.kt": f"package r\n\nobject Big {{\n{members}\n}}\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    pages = page_texts(out)
    assert sum(p.endswith("Big.kt") for p in pages) == 1
