// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * Which file a path named when it was looked at: the path, the device and inode of the file it
 * leads to (symbolic links followed), its size and its modification time. A file replaced,
 * rewritten or touched gets a different identity. Immutable.
 */
public record FileIdentity(Path path, long device, long inode, long size, FileTime lastModifiedTime) {
    private static final String ATTRIBUTES = "unix:dev,ino,size,lastModifiedTime";

    public FileIdentity {
        requireNonNull(path, "path is null");
        requireNonNull(lastModifiedTime, "lastModifiedTime is null");
    }

    /**
     * Reads the identity of {@code file}, following symbolic links.
     *
     * @throws IOException when the file's attributes cannot be read (missing, dangling link, no
     *     permission)
     * @throws UnsupportedOperationException on a file system without unix attributes
     */
    public static FileIdentity of(Path file) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(file, ATTRIBUTES);
        return new FileIdentity(
                file,
                (Long) attributes.get("dev"),
                (Long) attributes.get("ino"),
                (Long) attributes.get("size"),
                (FileTime) attributes.get("lastModifiedTime"));
    }
}
