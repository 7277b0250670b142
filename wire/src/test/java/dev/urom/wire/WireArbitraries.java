// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.PluginInfo;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of every message of the wire protocol, for the property tests. */
final class WireArbitraries {
    private WireArbitraries() {}

    /** Strings of whole code points (no lone surrogates), so that UTF-8 gives them back. */
    static Arbitrary<String> utf8Strings(int maxCodePoints) {
        return Arbitraries.integers()
                .between(1, 0x10FFFF)
                .filter(cp -> cp < 0xD800 || cp > 0xDFFF)
                .list()
                .ofMaxSize(maxCodePoints)
                .map(cps -> {
                    StringBuilder sb = new StringBuilder();
                    cps.forEach(sb::appendCodePoint);
                    return sb.toString();
                });
    }

    static Arbitrary<UromStatus> statuses() {
        return Arbitraries.of(UromStatus.class);
    }

    static Arbitrary<byte[]> payloads() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
    }

    static Arbitrary<ServicePlugin> plugins() {
        Arbitrary<String> names = utf8Strings(47).filter(s -> {
            int n = s.getBytes(StandardCharsets.UTF_8).length;
            return n >= 1 && n <= PluginInfo.NAME_MAX_BYTES;
        });
        return Combinators.combine(
                        Arbitraries.integers().between(0, 63),
                        Arbitraries.longs(),
                        names,
                        Arbitraries.of(ServicePlugin.NATIVE, ServicePlugin.JAVA))
                .as((bit, version, name, kind) -> new ServicePlugin(new PluginInfo(1L << bit, version, name), kind));
    }

    /** Workers as WORKERS_INFO_REPLY describes them: any ids, masks and counts; a pid or -1; an uptime of at least 0. */
    static Arbitrary<ServiceWorker> serviceWorkers() {
        Arbitrary<Long> longs = Arbitraries.longs();
        Arbitrary<Long> pids =
                Arbitraries.oneOf(Arbitraries.just(-1L), Arbitraries.longs().greaterOrEqual(0));
        Arbitrary<Long> uptimes = Arbitraries.longs().greaterOrEqual(0);
        return Combinators.combine(
                        longs,
                        longs,
                        longs,
                        Arbitraries.of(ServiceWorker.State.class),
                        pids,
                        uptimes,
                        longs,
                        utf8Strings(20).list().ofMaxSize(4))
                .as(ServiceWorker::new);
    }

    /** CPU lists as SERVICE_INFO_REPLY carries them: distinct CPUs below 65536, ascending. */
    static Arbitrary<List<Integer>> cpuLists() {
        return Arbitraries.integers()
                .between(0, ServiceInfoReply.MAX_CPUS - 1)
                .set()
                .ofMaxSize(20)
                .map(cpus -> cpus.stream().sorted().toList());
    }

    static Arbitrary<Message> messages() {
        Arbitrary<Long> longs = Arbitraries.longs();
        return Arbitraries.oneOf(
                Combinators.combine(Arbitraries.of(Role.class), payloads(), utf8Strings(20))
                        .as((role, nonce, principal) ->
                                new Hello(Protocol.MAGIC, Protocol.VERSION, role, nonce, principal)),
                Combinators.combine(
                                Arbitraries.integers(),
                                Arbitraries.integers().between(0, 0xffff),
                                Arbitraries.of(Role.class))
                        .filter((magic, version, role) -> magic != Protocol.MAGIC || version != Protocol.VERSION)
                        .as((magic, version, role) -> new Hello(magic, version, role, new byte[0], "")),
                payloads().map(Message.Challenge::new),
                payloads().map(Message.Proof::new),
                Combinators.combine(
                                Arbitraries.integers().between(0, 0xffff),
                                Arbitraries.integers().between(0, Integer.MAX_VALUE - 64),
                                longs,
                                Arbitraries.integers().greaterOrEqual(0),
                                utf8Strings(20),
                                payloads())
                        .as(HelloOk::new),
                Combinators.combine(statuses(), utf8Strings(40)).as(ErrorReply::new),
                Arbitraries.just(new PluginsRequest()),
                plugins().list().ofMaxSize(5).map(PluginsReply::new),
                Combinators.combine(
                                longs,
                                longs,
                                longs,
                                utf8Strings(20).list().ofMaxSize(4),
                                Arbitraries.integers().greaterOrEqual(0).list().ofMaxSize(6))
                        .as(WorkerStartRequest::new),
                Combinators.combine(statuses(), longs, longs, longs, utf8Strings(30), utf8Strings(30))
                        .as(WorkerStartReply::new),
                longs.map(WorkersInGroupRequest::new),
                longs.list().ofMaxSize(10).map(WorkersInGroupReply::new),
                longs.map(Message.WorkersInfoRequest::new),
                serviceWorkers().list().ofMaxSize(5).map(Message.WorkersInfoReply::new),
                Arbitraries.just(new ServiceInfoRequest()),
                Combinators.combine(cpuLists(), Arbitraries.integers().greaterOrEqual(0))
                        .as(ServiceInfoReply::new),
                Combinators.combine(longs, longs, payloads()).as(Command::new),
                Combinators.combine(longs, longs, statuses(), payloads()).as(Notify::new),
                Combinators.combine(longs, longs, statuses(), payloads(), utf8Strings(100))
                        .as(Notify::new),
                Arbitraries.just(new Stop()),
                Arbitraries.just(new StopOk()),
                longs.map(AddressRequest::new),
                Combinators.combine(statuses(), payloads(), transports(), payloads())
                        .as(AddressReply::new),
                Combinators.combine(longs, domainPeers().list().ofMaxSize(4)).as(DomainSet::new),
                Combinators.combine(statuses(), utf8Strings(40)).as(DomainSetReply::new));
    }

    /** Non-empty transport names: 1 to 64 characters of [A-Za-z0-9._:/-]. */
    static Arbitrary<String> transportNames() {
        return Arbitraries.strings()
                .alpha()
                .numeric()
                .withChars('.', '_', ':', '/', '-')
                .ofMinLength(1)
                .ofMaxLength(64);
    }

    /** A transport field: "" (none) half the time, a name otherwise. */
    static Arbitrary<String> transports() {
        return Arbitraries.oneOf(Arbitraries.just(""), transportNames());
    }

    static Arbitrary<DomainPeer> domainPeers() {
        Arbitrary<Long> longs = Arbitraries.longs();
        Arbitrary<DomainPeer.PluginAddress> address =
                Combinators.combine(longs, payloads(), transports(), payloads()).as(DomainPeer.PluginAddress::new);
        Arbitrary<DomainPeer.Segment> segment =
                Combinators.combine(longs, longs, payloads(), payloads()).as(DomainPeer.Segment::new);
        return Combinators.combine(
                        longs,
                        address.list().ofMaxSize(3).uniqueElements(DomainPeer.PluginAddress::pluginId),
                        segment.list().ofMaxSize(3))
                .as(DomainPeer::new);
    }
}
