"""What a Kotlin library's Dokka configuration and multiplatform layout change in its pages:
an `actual` Dokka shows (its type declares public members the `expect` lacks, as okhttp's
Android `OkHttp.initialize`, or no `expect` is a page), with the `expect`'s KDoc when it has
none; the module's `documentedVisibilities`, `skipDeprecated` and `suppressInheritedMembers`
(kotlinx-datetime's `core/build.gradle.kts` sets the last two); and the `includes` files
(`Module.md`: `# Module okhttp`, `# Package okhttp3`) that give the module and package pages
their text. The fixtures are written in the shapes of square/okhttp and Kotlin/kotlinx-datetime."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.packages.dokka_includes import named, shown
from docsmcp.sources.packages.kotlin_project import dokka_options
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

OKWIRE_EXPECT = """package okwire

/** The library's version and its setup. */
expect object OkWire {
  /** The version of OkWire in the current runtime, like "5.0.0". */
  val VERSION: String
}
"""

OKWIRE_JVM = """package okwire

actual object OkWire {
  actual val VERSION: String = "5.0.0"
}
"""

OKWIRE_ANDROID = """package okwire

import android.content.Context

actual object OkWire {
  actual val VERSION: String = "5.0.0"

  private var context: Context? = null

  /**
   * Configure the ApplicationContext. Not needed unless the AndroidX Startup `Initializer` is
   * disabled.
   */
  fun initialize(applicationContext: Context) {
    context = applicationContext
  }
}
"""

REGISTRY_ANDROID = """package okwire.platform

/** Whether the code runs on Android. */
actual val isAndroid: Boolean = true
"""

MODULE_MD = """# Module okwire

A wire client for Android and Java applications.

# Package okwire

The client, its calls and their responses.

## Threads

Calls run on the dispatcher's threads.

# Package okwire.tls

Certificates for `HandshakeCertificates`.

```
# Package in a fence stays
```
"""


def _okwire(tmp_path: Path, script: str = "") -> Path:
    src = "okwire/src"
    return write_tree(
        tmp_path / "okwire",
        {
            "settings.gradle.kts": 'include(":okwire")\n',
            "okwire/build.gradle.kts": "kotlin { jvm(); androidTarget() }\n" + script,
            "okwire/Module.md": MODULE_MD,
            f"{src}/commonMain/kotlin/okwire/OkWire.kt": OKWIRE_EXPECT,
            f"{src}/jvmMain/kotlin/okwire/OkWire.jvm.kt": OKWIRE_JVM,
            f"{src}/androidMain/kotlin/okwire/OkWire.android.kt": OKWIRE_ANDROID,
            f"{src}/androidMain/kotlin/okwire/platform/Registry.kt": REGISTRY_ANDROID,
        },
    )


def test_actuals_dokka_shows_and_module_md(tmp_path: Path) -> None:
    out = build_bundle(_okwire(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    api = ApiRegistry(open_bundle(out))
    # The Android actual declares `initialize`, which the expect lacks: Dokka's Android tab
    # shows it, so it is an entry; the actual takes the expect's KDoc, having none.
    (init,) = [api.spec(i) for i in api.lookup("OkWire.initialize")]
    assert init["description"].startswith("Configure the ApplicationContext.")
    android = pages["okwire/src/androidMain/kotlin/okwire/OkWire.android.kt"]
    assert "The library's version and its setup." in android
    assert "OkWire.VERSION" not in android  # (the expect's section shows it)
    assert "context" not in android.split("## OkWire.initialize")[0]  # (private: hidden)
    assert not any(p.endswith("OkWire.jvm.kt") for p in pages)  # (nothing of its own)
    (version,) = [api.spec(i) for i in api.lookup("OkWire.VERSION")]
    assert version["description"].startswith("The version of OkWire")
    # An actual whose expect is no page of the tree is shown, as Dokka shows it.
    assert len(api.lookup("isAndroid")) == 1
    # Module.md: the module page is titled by the module, each package a section below it.
    module = pages["okwire/Module.md"]
    assert "# okwire\n" in module and "Module okwire" not in module
    assert "## okwire.tls" in module and "### Threads" in module
    assert "# Package in a fence stays" in module


def test_dokka_options_of_the_module(tmp_path: Path) -> None:
    script = """
dokka {
    dokkaPublications.html {
        // Enum members and undocumented toString()
        suppressInheritedMembers.set(true)
    }
    dokkaSourceSets.configureEach {
        documentedVisibilities.set(setOf(VisibilityModifier.Public, VisibilityModifier.Protected))
        skipDeprecated.set(true)
    }
}
"""
    files = {
        "core/build.gradle.kts": 'plugins { id("org.jetbrains.dokka") }\n' + script,
        "core/common/src/Period.kt": """package kdt

/** A period of time. */
open class Period {
    /** The days of the period. */
    val days: Int = 0

    /** Used by subclasses to normalize. */
    protected fun normalize(): Period = this

    /** Old spelling. */
    @Deprecated("Use days", ReplaceWith("days"))
    val dayCount: Int get() = days
}

/** A period of whole days. */
class DayPeriod : Period()
""",
    }
    out = build_bundle(write_tree(tmp_path / "kdt", files), tmp_path / "idx")
    api = ApiRegistry(open_bundle(out))
    assert len(api.lookup("Period.normalize")) == 1  # (Protected documented)
    assert not api.lookup("Period.dayCount")  # (skipDeprecated)
    assert not api.lookup("DayPeriod.days")  # (suppressInheritedMembers: no inherited line)
    assert "DayPeriod.days" not in "".join(page_texts(out).values())
    # Without the options: Dokka's defaults.
    plain = build_bundle(
        write_tree(tmp_path / "plain", {**files, "core/build.gradle.kts": "plugins { }\n"}),
        tmp_path / "idx2",
    )
    api = ApiRegistry(open_bundle(plain))
    assert not api.lookup("Period.normalize")
    assert len(api.lookup("Period.dayCount")) == 1
    assert len(api.lookup("DayPeriod.days")) == 1


def test_options_and_includes_read_from_scripts() -> None:
    assert dokka_options("documentedVisibilities(Visibility.PUBLIC, Visibility.INTERNAL)") == {
        "visibilities": ["internal", "public"]
    }
    assert dokka_options("// skipDeprecated.set(true)\nskipDeprecated = false") == {}
    assert named('dokka { dokkaSourceSets.configureEach { includes.from("Module.md") } }') == [
        "Module.md"
    ]
    assert named('includes.from(files("docs/packages.md", "x.txt"))') == ["docs/packages.md"]
    assert named('includes = listOf("a.md")\nval b = "b.md"') == ["a.md"]
    assert shown("# Okwire\n\ntext\n") is None  # (no Module or Package heading: no include)


@given(st.text(max_size=400))
@FUZZ
def test_includes_and_options_never_fail(text: str) -> None:
    body = shown("# Module m\n" + text)
    assert body is not None and body.count("\n") == ("# Module m\n" + text).count("\n")
    named(text)
    dokka_options(text)
