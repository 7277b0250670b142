// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code UCX_TLS} as undumpable workers get it: never with {@code cma}, otherwise as asked. */
class UcxTransportsTest {
    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            UCX's default                    | <none>              | ^cma
            an empty value                   | ''                  | ^cma
            a list without cma               | tcp,self            | tcp,self
            cma named                        | posix,cma,self      | posix,self
            cma named in capitals            | CMA,tcp             | tcp
            cma as an auxiliary transport    | tcp,cma:aux         | tcp
            the sm alias                     | sm,self             | posix,sysv,self
            the shm alias, auxiliary         | tcp,shm:aux         | tcp,posix:aux,sysv:aux
            all                              | all                 | ^cma
            cma alone                        | cma                 | ^cma
            an exclusion list                | ^ib                 | ^ib,cma
            an exclusion list with cma       | ^cma,ib             | ^cma,ib
            """)
    void cmaIsNeverLeftIn(String what, String tls, String expected) {
        assertThat(UcxTransports.withoutCma(tls.equals("<none>") ? null : tls)).isEqualTo(expected);
    }
}
