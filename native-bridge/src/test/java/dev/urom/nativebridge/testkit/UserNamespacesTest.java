// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class UserNamespacesTest {

    @Test
    void aCommandThatSucceedsIsNoRefusal() {
        assertThat(UserNamespaces.probe(List.of("true"))).isNull();
    }

    @Test
    void aRefusalIsTheCommandAndItsLastLine() {
        assertThat(
                        UserNamespaces.probe(
                                List.of(
                                        "sh",
                                        "-c",
                                        "echo first; echo 'unshare: write failed /proc/self/uid_map: Operation not permitted'; exit 1")))
                .isEqualTo(
                        "sh -c echo first; echo 'unshare: write failed /proc/self/uid_map: Operation not permitted'; exit 1: "
                                + "unshare: write failed /proc/self/uid_map: Operation not permitted");
    }

    @Test
    void aSilentFailureNamesItsExitStatus() {
        assertThat(UserNamespaces.probe(List.of("false"))).isEqualTo("false: exit status 1");
    }

    @Test
    void aMissingProgramIsARefusal() {
        assertThat(UserNamespaces.probe(List.of("urom-no-such-program")))
                .startsWith("urom-no-such-program: Cannot run program");
    }
}
