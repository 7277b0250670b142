// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import static dev.urom.apicheck.FixtureClasses.compile;
import static dev.urom.apicheck.FixtureClasses.list;
import static dev.urom.apicheck.FixtureClasses.listing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiListerTest {
    private static final String WIDGET = """
            @Api(status = Status.STABLE, since = "0.1")
            public final class Widget {
                public static final int LIMIT = 4;
                private int secret;
                public Widget(String name) {}
                public int size(long at) { return 0; }
                void hidden() {}
            }
            """;
    private static final String GADGET = """
            @Api(status = Status.MAINTAINED, since = "0.1")
            public interface Gadget {
                void press();
            }
            """;

    /** WIDGET and GADGET, compiled once: the committed side of most comparisons. */
    @TempDir
    static Path baselineDir;

    private static Path baselineClasses;
    private static List<String> baseline;

    @TempDir
    Path dir;

    @BeforeAll
    static void compileTheBaseline() {
        baselineClasses = compile(baselineDir, WIDGET, GADGET);
        baseline = list(baselineClasses).lines();
    }

    @Test
    void listsEveryKindOfElementWithItsGenericSignatureAndStatus() {
        ApiListing api = listing(dir, """
                @Api(status = Status.STABLE, since = "0.1")
                public abstract class Shapes<T extends Comparable<T>> implements Cloneable, java.io.Serializable {
                    protected static String label;
                    protected Shapes() {}
                    public static <E extends Enum<E>> java.util.List<E> all(Class<E> type, String... names)
                            throws java.io.IOException, IllegalStateException { return null; }
                    public abstract java.util.Map<String, ? super T> index(T[] items);
                    @Api(status = Status.EXPERIMENTAL, since = "0.2") public void tryIt() {}
                    @Api(status = Status.STABLE, since = "0.1") public void same() {}
                    public record Point(int x, java.util.List<String> tags) {}
                    public enum Colour { RED, GREEN, BLUE }
                    public sealed interface Kind permits Round, Square {}
                    public static final class Round implements Kind {}
                    public static non-sealed class Square implements Kind {}
                    protected interface Hook { default void run() {} static Hook none() { return null; } }
                    static class PackagePrivate { public void notListed() {} }
                }
                """);

        assertThat(api.problems()).isEmpty();
        assertThat(api.lines())
                .containsExactly(
                        "[STABLE 0.1] public abstract class dev.urom.fixture.Shapes<T extends java.lang.Comparable<T>> implements java.io.Serializable, java.lang.Cloneable",
                        "    protected static java.lang.String label",
                        "    protected Shapes()",
                        "    public static <E extends java.lang.Enum<E>> java.util.List<E> all(java.lang.Class<E>, java.lang.String...) throws java.io.IOException, java.lang.IllegalStateException",
                        "    public abstract java.util.Map<java.lang.String, ? super T> index(T[])",
                        "    public void same()",
                        "    [EXPERIMENTAL 0.2] public void tryIt()",
                        "",
                        "[STABLE 0.1] public enum dev.urom.fixture.Shapes$Colour",
                        "    constant RED",
                        "    constant GREEN",
                        "    constant BLUE",
                        "    public static dev.urom.fixture.Shapes$Colour valueOf(java.lang.String)",
                        "    public static dev.urom.fixture.Shapes$Colour[] values()",
                        "",
                        "[STABLE 0.1] protected interface dev.urom.fixture.Shapes$Hook",
                        "    public static dev.urom.fixture.Shapes$Hook none()",
                        "    public default void run()",
                        "",
                        "[STABLE 0.1] public sealed interface dev.urom.fixture.Shapes$Kind permits dev.urom.fixture.Shapes$Round, dev.urom.fixture.Shapes$Square",
                        "",
                        "[STABLE 0.1] public record dev.urom.fixture.Shapes$Point",
                        "    component int x",
                        "    component java.util.List<java.lang.String> tags",
                        "    public Point(int, java.util.List<java.lang.String>)",
                        "    public final boolean equals(java.lang.Object)",
                        "    public final int hashCode()",
                        "    public java.util.List<java.lang.String> tags()",
                        "    public final java.lang.String toString()",
                        "    public int x()",
                        "",
                        "[STABLE 0.1] public static final class dev.urom.fixture.Shapes$Round implements dev.urom.fixture.Shapes$Kind",
                        "    public Round()",
                        "",
                        "[STABLE 0.1] public static non-sealed class dev.urom.fixture.Shapes$Square implements dev.urom.fixture.Shapes$Kind",
                        "    public Square()");
    }

    @Test
    void aChangedSignatureFailsTheComparisonNamingBothLines() {
        List<String> built = listing(
                        dir, GADGET, WIDGET.replace("public int size(long at)", "public long size(long at)"))
                .lines();

        Optional<String> difference = ApiDiff.describe(baseline, built, 20);

        assertThat(difference)
                .hasValueSatisfying(
                        d -> assertThat(d)
                                .startsWith("2 line(s) differ")
                                .contains(
                                        "  - line 7:     public int size(long)   (in [STABLE 0.1] public final class dev.urom.fixture.Widget)")
                                .contains(
                                        "  + line 7:     public long size(long)   (in [STABLE 0.1] public final class dev.urom.fixture.Widget)"));
    }

    @Test
    void anAddedMethodFailsTheComparison() {
        List<String> built = listing(
                        dir, GADGET, WIDGET.replace("void hidden() {}", "void hidden() {}\n    public void grow() {}"))
                .lines();

        assertThat(ApiDiff.describe(baseline, built, 20))
                .hasValueSatisfying(d -> assertThat(d)
                        .startsWith("1 line(s) differ")
                        .contains(
                                "  + line 7:     public void grow()   (in [STABLE 0.1] public final class dev.urom.fixture.Widget)")
                        .doesNotContain("  - "));
    }

    @Test
    void aRemovedTypeFailsTheComparison() {
        List<String> built = listing(dir, WIDGET).lines();

        assertThat(ApiDiff.describe(baseline, built, 20))
                .hasValueSatisfying(d -> assertThat(d)
                        .contains("  - line 1: [MAINTAINED 0.1] public interface dev.urom.fixture.Gadget")
                        .contains(
                                "  - line 2:     public abstract void press()   (in [MAINTAINED 0.1] public interface dev.urom.fixture.Gadget)")
                        .doesNotContain("  + "));
    }

    @Test
    void aChangedStatusFailsTheComparison() {
        List<String> built = listing(dir, GADGET, WIDGET.replace("Status.STABLE", "Status.DEPRECATED"))
                .lines();

        assertThat(ApiDiff.describe(baseline, built, 20))
                .hasValueSatisfying(d -> assertThat(d)
                        .contains("  - line 4: [STABLE 0.1] public final class dev.urom.fixture.Widget")
                        .contains("  + line 4: [DEPRECATED 0.1] public final class dev.urom.fixture.Widget"));
    }

    @Test
    void aPublicTypeWithoutStatusAMalformedVersionAndAnExposedWeakerTypeAreProblemsAndAPackageStatusIsListed() {
        ApiListing api = listing(dir, FixtureClasses.PACKAGE_INFO + """
                @Api(status = Status.MAINTAINED, since = "0.1")
                """, """
                public class Bare {
                    public void use() {}
                }
                """, """
                @Api(status = Status.EXPERIMENTAL, since = "0.1")
                public final class Outer {
                    public enum Inner { ONE }
                }
                """, """
                @Api(status = Status.STABLE, since = "soon")
                public final class Early {}
                """, """
                @Api(status = Status.INTERNAL, since = "0.1")
                public final class Codec {}
                """, """
                final class Hidden {}
                """, """
                @Api(status = Status.STABLE, since = "0.1")
                public final class Front {
                    public Codec codec() { return null; }
                    public java.util.List<Outer> outers() { return null; }
                    public void take(Hidden hidden) {}
                    public <T extends Bare> void bound(T t) {}
                    @Api(status = Status.EXPERIMENTAL, since = "0.1") public Outer.Inner inner() { return null; }
                    @Api(status = Status.INTERNAL, since = "0.1") public Codec internalCodec() { return null; }
                    @Api(status = Status.DEPRECATED, since = "0.1") public Outer old() { return null; }
                }
                """);

        assertThat(api.problems())
                .containsExactlyInAnyOrder(
                        "dev.urom.fixture.Bare is public and has no @Api status (annotate it with @dev.urom.spi.Api)",
                        "dev.urom.fixture.Early: @Api since \"soon\" is not a version (MAJOR.MINOR or MAJOR.MINOR.PATCH)",
                        "dev.urom.fixture.Front: public dev.urom.fixture.Codec codec() (STABLE) exposes dev.urom.fixture.Codec, which is INTERNAL",
                        "dev.urom.fixture.Front: public java.util.List<dev.urom.fixture.Outer> outers() (STABLE) exposes dev.urom.fixture.Outer, which is only EXPERIMENTAL",
                        "dev.urom.fixture.Front: public void take(dev.urom.fixture.Hidden) (STABLE) exposes dev.urom.fixture.Hidden, which is not public",
                        "dev.urom.fixture.Front: public <T extends dev.urom.fixture.Bare> void bound(T) (STABLE) exposes dev.urom.fixture.Bare, which has no @Api status");
        assertThat(api.lines()).startsWith("[MAINTAINED 0.1] package dev.urom.fixture", "");
        assertThat(api.lines())
                .contains(
                        "[no @Api] public class dev.urom.fixture.Bare",
                        "[EXPERIMENTAL 0.1] public enum dev.urom.fixture.Outer$Inner");
    }

    @Test
    void declarationOrderAndNonPublicMembersDoNotChangeTheListing() {
        List<String> reordered = listing(dir, GADGET, """
                @Api(status = Status.STABLE, since = "0.1")
                public final class Widget {
                    public int size(long at) { return 0; }
                    private void helper() {}
                    int packageCount;
                    public Widget(String name) {}
                    public static final int LIMIT = 4;
                }
                """).lines();

        assertThat(ApiDiff.describe(baseline, reordered, 20)).isEmpty();
        assertThat(reordered).isEqualTo(baseline);
    }

    @Test
    void aJarListsAsItsClassesFolderDoes() throws IOException {
        ApiListing fromJar = list(FixtureClasses.jar(baselineClasses, dir.resolve("module.jar")));

        assertThat(fromJar.lines()).isEqualTo(baseline);
        assertThat(fromJar.lines()).contains("[STABLE 0.1] public final class dev.urom.fixture.Widget");
    }

    @Test
    void aModuleWithoutClassesHasAnEmptyApi() {
        ApiListing api = list(dir.resolve("not-built"));

        assertThat(api.lines()).isEmpty();
        assertThat(api.problems()).isEmpty();
    }

    @Test
    void aLongDifferenceIsCutAtTheLimitAndCounted() {
        List<String> committed = List.of(
                "[STABLE 0.1] public final class A",
                "    public void a()",
                "    public void b()",
                "    public void c()");
        List<String> built = List.of("[STABLE 0.1] public final class A");

        assertThat(ApiDiff.describe(committed, built, 2))
                .hasValue("3 line(s) differ (- only in the committed file, + only in the build):\n"
                        + "  - line 2:     public void a()   (in [STABLE 0.1] public final class A)\n"
                        + "  - line 3:     public void b()   (in [STABLE 0.1] public final class A)\n"
                        + "  ... and 1 more");
        assertThat(ApiDiff.describe(committed, committed, 2)).isEmpty();
    }
}
