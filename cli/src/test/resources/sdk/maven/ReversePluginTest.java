package sdk.example;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The consumer project's own test: AssertJ reaches it through urom-testkit's dependencies. */
class ReversePluginTest {
    @Test
    void reversesTheBytes() {
        assertThat(ReversePlugin.reverse(new byte[] {1, 2, 3})).containsExactly(3, 2, 1);
    }
}
