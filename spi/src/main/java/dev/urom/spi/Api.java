// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What urom-java promises about a public element of its published modules ({@code urom-spi},
 * {@code urom-host}, {@code urom-testkit}): whether a plugin author or a host application may build
 * on it, and since which version it is there.
 *
 * <p>Every public type of those modules carries one. A member, or a nested type, without its own
 * has the status of the type that declares it; one with its own (a method added later, an
 * experimental method of a stable type) overrides it. The build's API check ({@code api-check/})
 * lists every element with its status and fails on an unannotated public type.
 *
 * <p>Kept at run time so that the check, and any tool, can read it by reflection. Versions are
 * {@code MAJOR.MINOR[.PATCH]}; while the major version is 0, a new minor version (0.1 to 0.2) counts
 * as a new major version for these promises.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD, ElementType.PACKAGE})
public @interface Api {

    /** The promise. */
    Status status();

    /** The version the element first had this status in, such as {@code "0.1"}. */
    String since();

    /** The promises, from the strongest to none. */
    enum Status {
        /**
         * Build on it: no incompatible change (of its signature or of its documented behaviour) before
         * the next major version, and then only after it has been {@link #DEPRECATED} in at least one
         * release.
         */
        STABLE,
        /**
         * Build on it, and watch the release notes: no incompatible change before the next minor
         * version; it is {@link #DEPRECATED} for at least one release before it goes away.
         */
        MAINTAINED,
        /**
         * New, and open to feedback: it may change incompatibly, or go away, in any release, patch
         * releases included.
         */
        EXPERIMENTAL,
        /**
         * Still works, but goes away in a later release (no earlier than the next minor version); its
         * documentation names what replaces it.
         */
        DEPRECATED,
        /**
         * Not for use outside urom-java: public only because another of its modules uses it (the
         * daemon, the worker, the command line). It may change in any release without notice.
         */
        INTERNAL
    }
}
