package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

/**
 * Tag matching of posted receives and arriving messages: a message with tag {@code t} matches a
 * receive {@code (tag, mask)} when {@code (t & mask) == (tag & mask)}. An arriving message goes to
 * the oldest posted receive it matches, a posted receive takes the oldest unexpected message it
 * matches; whatever matches nothing waits, in order.
 *
 * <p>Not thread-safe: owned by one plugin instance and used from its driving thread.
 *
 * @param <R> what the caller keeps for a posted receive
 * @param <M> what the caller keeps for an unexpected message
 */
final class TagMatcher<R, M> {
    private record Posted<R>(long tag, long mask, R receive) {}

    private record Unexpected<M>(long tag, M message) {}

    private final LinkedList<Posted<R>> receives = new LinkedList<>();
    private final LinkedList<Unexpected<M>> unexpected = new LinkedList<>();

    static boolean matches(long messageTag, long tag, long mask) {
        return (messageTag & mask) == (tag & mask);
    }

    /**
     * A message with {@code messageTag} arrived: the oldest posted receive it matches, removed, or
     * {@code null} when none matches and the message was queued as unexpected.
     */
    R arrive(long messageTag, M message) {
        requireNonNull(message, "message is null");
        for (Iterator<Posted<R>> it = receives.iterator(); it.hasNext(); ) {
            Posted<R> posted = it.next();
            if (matches(messageTag, posted.tag, posted.mask)) {
                it.remove();
                return posted.receive;
            }
        }
        unexpected.add(new Unexpected<>(messageTag, message));
        return null;
    }

    /**
     * A receive was posted: the oldest unexpected message it matches, removed, or {@code null}
     * when none matches and the receive was queued.
     */
    M post(long tag, long mask, R receive) {
        requireNonNull(receive, "receive is null");
        for (Iterator<Unexpected<M>> it = unexpected.iterator(); it.hasNext(); ) {
            Unexpected<M> waiting = it.next();
            if (matches(waiting.tag, tag, mask)) {
                it.remove();
                return waiting.message;
            }
        }
        receives.add(new Posted<>(tag, mask, receive));
        return null;
    }

    /** Removes every posted receive and returns them, oldest first. */
    List<R> drainReceives() {
        List<R> drained = new ArrayList<>(receives.size());
        for (Posted<R> posted : receives) {
            drained.add(posted.receive);
        }
        receives.clear();
        return drained;
    }

    int postedCount() {
        return receives.size();
    }

    int unexpectedCount() {
        return unexpected.size();
    }
}
