"""Kotlin libraries read as Dokka shows them: a Gradle project's main source sets become a page
per file (a class's page, or a package's top-level declarations), each public declaration a
section and an API entry named as code calls it. The fixtures are written in the shape of
square/okhttp (a multiplatform module's `src/commonJvmAndroid/kotlin`, a Builder, companion
objects with extensions, Dokka's `perPackageOption` in a build-logic convention plugin that
suppresses `internal`, test source sets, a testing-support module that publishes nothing, a
samples module) and of Kotlin/kotlinx-datetime (`common/src`, `jvm/src`, expect and actual,
a constructor with its own KDoc)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.kdoc import kotlin_to_markdown
from docsmcp.sources.formats.source.kdoc_text import render
from docsmcp.sources.formats.source.kotlin_lex import tokens
from docsmcp.sources.formats.source.kotlin_parse import parse
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

CONVENTIONS = """import org.jetbrains.dokka.gradle.DokkaExtension

plugins { id("com.vanniktech.maven.publish.base") }

configure<DokkaExtension> {
  dokkaPublications.all {
    dokkaSourceSets.configureEach {
      perPackageOption {
        matchingRegex.set(\"\"\".*[.]internal([.].*)?\"\"\")
        suppress.set(true)
      }
    }
  }
}
"""

CLIENT = """/*
 * Copyright (C) 2024 The Authors.
 */
package okwire

import java.util.concurrent.TimeUnit
import okwire.internal.Util

/**
 * Factory for [calls][Call], which send HTTP requests and read their responses.
 *
 * ## Clients Should Be Shared
 *
 * Create one client and reuse it: see [newBuilder].
 *
 * ```kotlin
 * val client = OkWireClient.Builder().build()
 * ```
 */
open class OkWireClient internal constructor(
  builder: Builder,
) : Call.Factory {
  /** The dispatcher that runs asynchronous calls. */
  val dispatcher: Dispatcher = builder.dispatcher

  internal val routes: RouteDatabase = builder.routes ?: RouteDatabase()

  private val secret = "}"

  /** Prepares the [request] to be executed at some point in the future. */
  override fun newCall(request: Request): Call = RealCall(this, request)

  open fun newBuilder(): Builder = Builder(this)

  @JvmName("-deprecated_dispatcher")
  @Deprecated(
    message = "moved to val",
    replaceWith = ReplaceWith(expression = "dispatcher"),
    level = DeprecationLevel.ERROR,
  )
  fun dispatcher(): Dispatcher = dispatcher

  @Deprecated("gone", level = DeprecationLevel.HIDDEN)
  fun hiddenOne(): Int = 0

  class Builder() {
    internal var readTimeout = 10_000

    /**
     * Sets the default read timeout for new connections. A value of 0 means no timeout.
     *
     * @param timeout how long to wait, in [unit]s.
     * @param unit the unit of [timeout].
     * @throws IllegalArgumentException if [timeout] is negative.
     * @see [OkWireClient.dispatcher]
     */
    fun readTimeout(timeout: Long, unit: TimeUnit = TimeUnit.SECONDS) =
      apply {
        readTimeout = "${'$'}{timeout.let { "{" }}".length
      }

    /** @suppress */
    fun secretOption(): Builder = this

    fun build(): OkWireClient = OkWireClient(this)
  }
}
"""

MEDIA_TYPE = """package okwire

/**
 * An RFC 2045 Media Type, such as `text/plain`.
 *
 * @property type the high-level media type, such as "text".
 */
class MediaType internal constructor(
  val type: String,
  private val mediaType: String,
) {
  companion object {
    /**
     * Returns a media type for this string.
     *
     * @receiver a string such as `text/plain; charset=utf-8`.
     * @throws IllegalArgumentException if this is not a well-formed media type.
     */
    @JvmStatic
    @JvmName("get")
    fun String.toMediaType(): MediaType = parse(this)

    /** Returns a media type for [mediaType], or null if it is not one. */
    @JvmStatic
    fun parse(mediaType: String): MediaType? = null
  }
}
"""

GZIP = """@file:JvmName("-Gzip")

package okwire

/**
 * Returns a request body that compresses this one with gzip.
 *
 * @sample okwire.samples.gzipSample
 */
fun RequestBody.gzip(): RequestBody = GzipRequestBody(this)

/** The largest body compressed, in bytes. */
const val MAX_GZIP: Long = 1_000_000L

internal fun helper() = Unit
"""

TLS = """package okwire

/** Versions of TLS that can be offered when negotiating a secure socket. */
enum class TlsVersion(
  @get:JvmName("javaName") val javaName: String,
) {
  /** Since 2018. */
  TLS_1_3("TLSv1.3"),
  TLS_1_2("TLSv1.2"),
  ;

  companion object {
    @JvmStatic
    fun forJavaName(javaName: String): TlsVersion = TLS_1_3
  }
}
"""


def _okwire(root: Path) -> Path:
    main = "okwire/src/commonJvmAndroid/kotlin/okwire/"
    return write_tree(
        root,
        {
            "README.md": "# OkWire\n\nAn HTTP client.\n",
            "settings.gradle.kts": 'include(":okwire")\ninclude(":okwire-testing-support")\n',
            "build.gradle.kts": 'plugins { kotlin("multiplatform") apply false }\n',
            "build-logic/build.gradle.kts": "plugins { `kotlin-dsl` }\n",
            "build-logic/src/main/kotlin/okwire.publish-conventions.gradle.kts": CONVENTIONS,
            "build-logic/src/main/kotlin/okwire/BuildThing.kt": "package okwire\n\nclass X\n",
            "okwire/build.gradle.kts": 'plugins { id("okwire.publish-conventions") }\n',
            main + "OkWireClient.kt": CLIENT,
            main + "MediaType.kt": MEDIA_TYPE,
            main + "Gzip.kt": GZIP,
            main + "TlsVersion.kt": TLS,
            main + "internal/Util.kt": "package okwire.internal\n\n/** Hidden. */\nobject Util\n",
            "okwire/src/jvmMain/kotlin/okwire/Platform.kt": (
                'package okwire\n\n/** The JVM\'s. */\nfun platformName(): String = "jvm"\n'
            ),
            "okwire/src/jvmTest/kotlin/okwire/ClientTest.kt": "package okwire\n\nclass Test\n",
            "okwire/src/commonTest/kotlin/okwire/MoreTest.kt": "package okwire\n\nclass More\n",
            "okwire-testing-support/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "okwire-testing-support/src/main/kotlin/okwire/Fake.kt": (
                "package okwire\n\n/** A fake. */\nclass FakeDns\n"
            ),
            "samples/guide/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "samples/guide/src/main/kotlin/okwire/Recipe.kt": "package okwire\n\nclass Recipe\n",
        },
    )


def test_project_reads_as_dokka_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_okwire(tmp_path / "okwire"), tmp_path / "idx")
    pages = page_texts(out)
    main = "okwire/src/commonJvmAndroid/kotlin/okwire/"
    # Main source sets of published modules only: not tests, the suppressed internal package,
    # build logic, the testing-support module (it publishes nothing) or samples.
    assert set(pages) == {
        "README.md",
        main + "OkWireClient.kt",
        main + "MediaType.kt",
        main + "Gzip.kt",
        main + "TlsVersion.kt",
        "okwire/src/jvmMain/kotlin/okwire/Platform.kt",
    }
    text = pages[main + "OkWireClient.kt"]
    assert "# okwire.OkWireClient" in text
    assert (
        "```kotlin\nopen class OkWireClient internal constructor(builder: Builder) : "
        "Call.Factory\n```" in text
    )
    # KDoc is markdown: its headings go below the class's, `[newBuilder]` links to its section.
    assert "### Clients Should Be Shared" in text
    assert "Create one client and reuse it: see [`newBuilder`](#OkWireClient.newBuilder-)." in text
    assert "```kotlin\nval client = OkWireClient.Builder().build()\n```" in text
    assert "Factory for calls, which send HTTP requests" in text
    assert "## OkWireClient.dispatcher" in text and "val dispatcher: Dispatcher" in text
    assert "**Deprecated.** moved to val Replace with `dispatcher`." in text
    assert "### OkWireClient.Builder.readTimeout" in text
    assert (
        "fun readTimeout(timeout: Long, unit: TimeUnit = TimeUnit.SECONDS): OkWireClient.Builder"
        in text
    )
    assert "- `timeout` - how long to wait, in `unit`s." in text
    assert "- `IllegalArgumentException` - if `timeout` is negative." in text
    # What Dokka leaves out: internal, private, HIDDEN deprecations, @suppress.
    for hidden in ("routes", "secret", "hiddenOne", "secretOption", "OkWireClient(builder"):
        assert hidden not in text
    media = pages[main + "MediaType.kt"]
    assert "## MediaType.type" in media and "the high-level media type" in media
    assert "mediaType:" not in media.split("## MediaType.type")[1].split("##")[0]
    assert "### String.toMediaType" in media and "**Receiver:** a string such as" in media
    assert "### MediaType.parse" in media
    gzip = pages[main + "Gzip.kt"]
    assert gzip.lstrip().startswith("# okwire (Gzip.kt)")
    assert "## RequestBody.gzip" in gzip and "- `okwire.samples.gzipSample`" in gzip
    assert "## MAX_GZIP" in gzip and "const val MAX_GZIP: Long = 1_000_000L" in gzip
    assert "helper" not in gzip
    tls = pages[main + "TlsVersion.kt"]
    assert "## TlsVersion.TLS_1_3" in tls and "Since 2018." in tls
    assert "## TlsVersion.javaName" in tls and "### TlsVersion.forJavaName" in tls

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "okwire.OkWireClient",
        "okwire.OkWireClient.newCall",
        "okwire.OkWireClient.Builder.readTimeout",
        "okwire.String.toMediaType",
        "okwire.MediaType.parse",
        "okwire.RequestBody.gzip",
        "okwire.TlsVersion.TLS_1_3",
        "okwire.platformName",
    } <= names
    assert not {n for n in names if "Util" in n or "Fake" in n or "Recipe" in n or n == "X"}
    found = [api.spec(i) for i in api.lookup("Builder.readTimeout")]
    assert len(found) == 1
    entry = found[0]
    assert entry["description"].startswith("Sets the default read timeout")
    assert [(p["name"], p["type"], p["required"]) for p in entry["parameters"]] == [
        ("timeout", "Long", True),
        ("unit", "TimeUnit", False),
    ]
    assert entry["returns"] == "OkWireClient.Builder"
    assert entry["chunk_id"] == (
        main + "OkWireClient.kt#OkWireClient/OkWireClient.Builder/"
        "OkWireClient.Builder.readTimeout-Long-TimeUnit-"
    )
    assert api.lookup("toMediaType") == api.lookup("String.toMediaType")
    assert api.spec(api.lookup("OkWireClient")[0])["name"] == "okwire.OkWireClient"


KOTLINX_COMMON = """package kotlinx.clock

/**
 * The year-month part of a date.
 *
 * @sample kotlinx.clock.test.samples.YearMonthSamples.simple
 */
public expect class YearMonth
/**
 * Constructs a [YearMonth] from the given year and month.
 *
 * @throws IllegalArgumentException if [month] is out of range.
 */
public constructor(year: Int, month: Int) : Comparable<YearMonth> {
    /** The year component. */
    public val year: Int

    public companion object {
        /** Parses an ISO 8601 year-month such as `2024-02`. */
        public fun parse(input: CharSequence): YearMonth
    }
}

/** Formats this value with [format]. */
public fun YearMonth.Companion.orNull(year: Int, month: Int): YearMonth? = null
"""

KOTLINX_JVM = """package kotlinx.clock

public actual class YearMonth actual constructor(year: Int, month: Int) : Comparable<YearMonth> {
    public actual val year: Int = year
    public actual companion object {
        public actual fun parse(input: CharSequence): YearMonth = TODO()
    }
}

/** Converts this year-month to the JDK's. */
public fun YearMonth.toJavaYearMonth(): java.time.YearMonth = TODO()
"""


SAMPLES = """package kotlinx.clock.test.samples

import kotlinx.clock.*
import kotlin.test.*

class YearMonthSamples {
    @Test
    fun simple() {
        // Parsing and formatting YearMonth values
        check(YearMonth.parse("2023-01") == YearMonth(2023, 1))
        val text = "${'$'}{YearMonth(2023, 1)}"
    }
}
"""


def test_kotlinx_layout_expect_and_actual(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "clock",
        {
            "settings.gradle.kts": 'include(":core")\n',
            "core/build.gradle.kts": (
                "dokka {\n  dokkaSourceSets.configureEach {\n    perPackageOption {\n"
                '      matchingRegex.set(".*\\\\.internal(\\\\..*)?")\n'
                "      suppress.set(true)\n    }\n  }\n}\n"
            ),
            "core/common/src/YearMonth.kt": KOTLINX_COMMON,
            "core/jvm/src/YearMonthJvm.kt": KOTLINX_JVM,
            "core/common/src/internal/Math.kt": "package kotlinx.clock.internal\n\nfun x() = 1\n",
            "core/common/test/YearMonthTest.kt": "package kotlinx.clock\n\nclass T\n",
            "core/common/test/samples/YearMonthSamples.kt": SAMPLES,
            "benchmarks/build.gradle.kts": 'plugins { id("me.champeau.jmh") }\n',
            "benchmarks/src/jmh/kotlin/Bench.kt": "package kotlinx.clock\n\nclass Bench\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    pages = page_texts(out)
    assert set(pages) == {"core/common/src/YearMonth.kt", "core/jvm/src/YearMonthJvm.kt"}
    common = pages["core/common/src/YearMonth.kt"]
    assert "# kotlinx.clock.YearMonth" in common
    assert "## YearMonth(year: Int, month: Int)" in common
    assert "Constructs a [`YearMonth`](#YearMonth) from the given year and month." in common
    assert "## YearMonth.year" in common and "### YearMonth.parse" in common
    assert "## YearMonth.orNull" in common
    # `@sample` shows the sample function's body, as Dokka's samples do.
    assert (
        "**Samples:**\n\n```kotlin\n// Parsing and formatting YearMonth values\n"
        'check(YearMonth.parse("2023-01") == YearMonth(2023, 1))\n' in common
    )
    jvm = pages["core/jvm/src/YearMonthJvm.kt"]
    # An `actual` is documented by its `expect`: the JVM file shows its own API only.
    assert "## YearMonth.toJavaYearMonth" in jvm and "actual" not in jvm
    api = ApiRegistry(open_bundle(out))
    assert len(api.lookup("YearMonth.parse")) == 1
    (year_month,) = [api.spec(i) for i in api.lookup("kotlinx.clock.YearMonth")]
    assert year_month["examples"][0]["code"].startswith("// Parsing and formatting")
    assert api.spec(api.lookup("YearMonth.orNull")[0])["signature"].startswith(
        "public fun YearMonth.Companion.orNull("
    )


def test_kotlin_outside_a_project_is_no_page(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "index.md": "# Guide\n\nUse the client.\n",
            "snippets/Example.kt": "package demo\n\n/** A demo. */\nclass Demo\n",
            "buildSrc/src/main/kotlin/Deps.kt": "object Deps\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {"index.md"}


def test_kdoc_tags_and_links() -> None:
    seen: list[tuple[str, str]] = []

    def link(target: str, label: str) -> str | None:
        seen.append((target, label))
        return f"<{label or target}>" if target[:1].isupper() or "." in target else None

    doc = render(
        """
     * Sends [Request]s with [the client][OkWire.client]; `[NotALink]` and [a](b) stay.
     * For [Response]: it is read.
     * [ref]: https://example.com/ref
     *
     * ```
     * @param inFence stays code [NotALink]
     * ```
     *
     * @param [name] the name, see [Other].
     * @property size how many.
     * @return the [Response].
     * @exception java.io.IOException when it fails.
     * @author Someone
     """,
        link,
    )
    assert doc.lines[0] == ("Sends <Request>s with <the client>; `[NotALink]` and [a](b) stay.")
    assert doc.lines[1:3] == ("For <Response>: it is read.", "[ref]: https://example.com/ref")
    assert "@param inFence stays code [NotALink]" in doc.lines
    assert [(t.name, t.arg, t.text) for t in doc.tags] == [
        ("param", "name", "the name, see <Other>."),
        ("property", "size", "how many."),
        ("return", "", "the <Response>."),
        ("throws", "java.io.IOException", "when it fails."),
        ("author", "", "Someone"),
    ]
    assert ("NotALink", "") not in seen


def test_declarations_of_modern_kotlin() -> None:
    unit = parse(
        """package p

import a.b.C as D

/** A value class. */
@JvmInline
value class Id(val raw: String)

sealed interface Shape {
    data class Circle(val r: Double) : Shape
    data object Empty : Shape
}

fun interface Listener { fun on(event: String) }

inline fun <reified T : Any> Registry.get(name: String = "x${'$'}{1 + 2}"): T
    where T : Comparable<T> =
    lookup(T::class, name)

val <T> List<T>.second: T
    get() = this[1]

var counter: Int = 0
    private set

typealias Handler = (String) -> Unit

suspend fun fetch(
    url: String,
    vararg headers: Pair<String, String>,
): String {
    val raw = \"\"\"
        { "a": "${'$'}{url}" }
    \"\"\"
    return raw
}
"""
    )
    assert unit.imports == {"D": "a.b.C"}
    names = [(d.kind, d.name) for d in unit.declarations]
    assert names == [
        ("class", "Id"),
        ("interface", "Shape"),
        ("interface", "Listener"),
        ("function", "get"),
        ("property", "second"),
        ("property", "counter"),
        ("typealias", "Handler"),
        ("function", "fetch"),
    ]
    shape = unit.declarations[1]
    assert [(m.kind, m.name) for m in shape.members] == [("class", "Circle"), ("object", "Empty")]
    get = unit.declarations[3]
    assert get.receiver == "Registry" and get.returns == "T"
    assert get.params == (("name", "String", "\"x${'$'}{1 + 2}\""),)
    assert unit.declarations[4].receiver == "List<T>"
    fetch = unit.declarations[7]
    assert [p[0] for p in fetch.params] == ["url", "headers"]
    assert fetch.declaration == (
        "suspend fun fetch(url: String, vararg headers: Pair<String, String>): String"
    )


def test_generated_and_empty_files_are_no_pages() -> None:
    generated = "// Code generated by a tool. DO NOT EDIT.\npackage p\n\nclass A\n"
    assert kotlin_to_markdown("src/main/kotlin/p/A.kt", generated).text == ""
    only_internal = "package p\n\ninternal class A\nprivate fun b() = 1\n"
    assert kotlin_to_markdown("src/main/kotlin/p/A.kt", only_internal).text == ""


@FUZZ
@given(st.text(alphabet="/*\"'{}()<>@:=,.$\\\n `abcfunvalclassobject[]#", max_size=400))
def test_reader_never_fails_on_any_text(text: str) -> None:
    toks = tokens(text)
    assert all(a.end <= b.start for a, b in zip(toks, toks[1:], strict=False))
    page = kotlin_to_markdown("src/main/kotlin/p/A.kt", "package p\n" + text)
    assert isinstance(page.text, str)
    doc = render(text, lambda ref, label: label or ref)
    assert isinstance(doc.lines, tuple)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                '"a{"',
                "'}'",
                "/* { /* } */ { */",
                "// {\n",
                '"""\n{\n"""',
                '"${ "}" }"',
                '"""${ m["{"] }"""',
                "`a {`",
                "{",
                "}",
                "x",
                "\n",
            ]
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_brackets(parts: list[str]) -> None:
    # A brace inside a string, a template's string, a raw string, a character, a nested
    # comment or a backticked name is no token of its own. (Apart: `"""` then `"` would be
    # a raw string ending in a quote, as Kotlin reads it.)
    toks = tokens(" ".join(parts))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind in ("open", "close") for t in toks) == expected


def test_hostile_input_ends() -> None:
    deep = "class A {\n" * 3000 + "/** x */ fun f() {}\n" + "}\n" * 3000
    assert isinstance(kotlin_to_markdown("src/main/kotlin/A.kt", deep).text, str)
    assert isinstance(kotlin_to_markdown("src/main/kotlin/A.kt", "/**" + "/*" * 20000).text, str)
    tokens('"${' * 20000)
    tokens('"""' + "${" * 20000)
