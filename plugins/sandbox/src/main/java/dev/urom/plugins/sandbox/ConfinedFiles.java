// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * Opens the file a MEM_MAP names without trusting its path: beneath its {@link MappableRoots.Root},
 * one component at a time, each directory through the {@link SecureDirectoryStream} of the one
 * before (the root's from {@link Files#newDirectoryStream}), every component with {@link
 * LinkOption#NOFOLLOW_LINKS}, the last one opened read-write through its directory's stream. So no
 * symbolic link is ever followed, not even one a host swaps in after a component was checked: that
 * open fails instead.
 *
 * <p>Refusals, in the order the components are met (the C plugin's openat2 meets them the same
 * way): a {@code ..} component, one that is a mount point, or a symbolic link, → {@code
 * NOT_PERMITTED}; a missing
 * component → {@code NOT_FOUND}; one on the way that is not a directory → {@code NOT_FOUND}; no
 * permission → {@code NOT_PERMITTED}; a last component that is a directory, or not a regular file,
 * → {@code INVALID_VALUE}. Each message names the path and the reason.
 *
 * <p>Where Java cannot do what the C plugin does: a directory on the way is opened for reading
 * (the C plugin needs only search permission), so a search-only directory refuses with {@code
 * NOT_PERMITTED} here; and since such an open has no {@code O_DIRECTORY}/{@code O_NONBLOCK}, a host
 * that replaces a directory on the way by a FIFO between its check and its open makes that open wait
 * for a writer to the FIFO.
 *
 * <p>Stateless; safe to call from any thread.
 */
final class ConfinedFiles {
    private static final int LOGGED_TEXT_MAX = 200;
    private static final Set<OpenOption> READ_WRITE_NO_FOLLOW =
            Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

    private ConfinedFiles() {}

    /**
     * Opens {@code path}, which lies below {@code root}, read-write.
     *
     * @return the channel of a regular file; the caller owns it
     * @throws UromException the refusals of the class comment; {@code OPERATING_SYSTEM} for any
     *     other failure
     */
    static FileChannel open(MappableRoots roots, MappableRoots.Root root, String path) throws UromException {
        List<String> names = components(path.substring(root.directory().length()));
        Deque<SecureDirectoryStream<Path>> opened = new ArrayDeque<>();
        try {
            SecureDirectoryStream<Path> directory = secure(Files.newDirectoryStream(Path.of(root.directory())), path);
            opened.push(directory);
            StringBuilder reached = new StringBuilder(root.directory());
            for (int i = 0; ; i++) {
                String name = names.get(i);
                Path entry = Path.of(name);
                if (name.equals("..")) {
                    throw refusal(UromStatus.NOT_PERMITTED, path, "the path holds '..'");
                }
                if (!name.equals(".")) {
                    reached.append('/').append(name);
                    if (roots.isMountPoint(reached.toString())) {
                        throw refusal(UromStatus.NOT_PERMITTED, path, "the path crosses a mount point");
                    }
                }
                PosixFileAttributes attributes = directory
                        .getFileAttributeView(entry, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
                if (attributes.isSymbolicLink()) {
                    throw refusal(UromStatus.NOT_PERMITTED, path, "the path goes through a symbolic link");
                }
                if (i == names.size() - 1) {
                    return openLast(directory, entry, attributes, path);
                }
                if (!attributes.isDirectory()) {
                    throw refusal(UromStatus.NOT_FOUND, path, "a component of the path is not a directory");
                }
                directory = directory.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS);
                opened.push(directory);
            }
        } catch (NoSuchFileException e) {
            throw refusal(UromStatus.NOT_FOUND, path, "no such file");
        } catch (NotDirectoryException e) {
            throw refusal(UromStatus.NOT_FOUND, path, "a component of the path is not a directory");
        } catch (AccessDeniedException e) {
            throw refusal(UromStatus.NOT_PERMITTED, path, "permission denied");
        } catch (FileSystemException e) {
            throw refusal(UromStatus.OPERATING_SYSTEM, path, e.getReason() == null ? e.toString() : e.getReason());
        } catch (IOException e) {
            throw refusal(UromStatus.OPERATING_SYSTEM, path, e.toString());
        } catch (InvalidPathException e) {
            throw refusal(UromStatus.NOT_PERMITTED, path, e.getReason());
        } finally {
            for (SecureDirectoryStream<Path> directory : opened) {
                try {
                    directory.close();
                } catch (IOException ignored) {
                    // only a directory that was read: nothing to lose
                }
            }
        }
    }

    /** The names of {@code rest} ({@code /} and what follows the root); "." ends one that ends in {@code /}. */
    static List<String> components(String rest) {
        List<String> names = new ArrayList<>();
        for (String name : rest.split("/")) {
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        if (names.isEmpty() || rest.endsWith("/")) {
            names.add(".");
        }
        return names;
    }

    /** "MEM_MAP of '<path>' refused: <reason>", the path cut as host text is in log lines. */
    static UromException refusal(UromStatus status, String path, String reason) {
        String shown = path.length() > LOGGED_TEXT_MAX ? path.substring(0, LOGGED_TEXT_MAX) + "..." : path;
        return new UromException(status, "MEM_MAP of '" + shown + "' refused: " + reason);
    }

    private static FileChannel openLast(
            SecureDirectoryStream<Path> directory, Path entry, PosixFileAttributes attributes, String path)
            throws IOException, UromException {
        if (attributes.isDirectory()) {
            throw refusal(UromStatus.INVALID_VALUE, path, "it is not a regular file");
        }
        SeekableByteChannel channel;
        try {
            channel = directory.newByteChannel(entry, READ_WRITE_NO_FOLLOW);
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw e;
        } catch (FileSystemException e) {
            if (!attributes.isRegularFile()) {
                throw refusal(UromStatus.INVALID_VALUE, path, "it is not a regular file");
            }
            throw e;
        }
        if (attributes.isRegularFile() && channel instanceof FileChannel file) {
            return file;
        }
        channel.close();
        throw attributes.isRegularFile()
                ? refusal(
                        UromStatus.OPERATING_SYSTEM,
                        path,
                        "the opened file is a " + channel.getClass().getName() + ", not a FileChannel")
                : refusal(UromStatus.INVALID_VALUE, path, "it is not a regular file");
    }

    private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, String path)
            throws IOException, UromException {
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw refusal(
                UromStatus.OPERATING_SYSTEM,
                path,
                "this platform has no SecureDirectoryStream to open files beneath a directory");
    }
}
