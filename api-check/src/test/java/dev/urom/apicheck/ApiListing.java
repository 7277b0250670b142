// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import java.util.List;

/**
 * One module's public API as {@link ApiLister} lists it.
 *
 * @param lines the listing, sorted, without line ends
 * @param problems what fails the check whatever the committed file says (an unannotated public type,
 *     a malformed version, an element exposing a type that promises less), one line each
 */
record ApiListing(List<String> lines, List<String> problems) {
    ApiListing {
        lines = List.copyOf(lines);
        problems = List.copyOf(problems);
    }
}
