package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.http.Headers;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Response;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the internal plane decides at a request's head, before its body is read: a missing,
 * malformed, repeated, stale or forged proof is 403, a request for another node 403, a body longer
 * than its route takes 413; a head with a valid proof goes on (the proof names the body's digest,
 * compared once the body is in).
 */
class InternalHeadAdmissionTest {
    private final InternalApiHandler handler = TestAuth.handler(new InMemoryStorageEngine(),
            new HybridLogicalClock(System::currentTimeMillis));
    private final InternalAuth peer = new InternalAuth(TestAuth.SECRET, "http://127.0.0.1:2", TestAuth.TOPOLOGY,
            System::currentTimeMillis);

    @Test
    void aHeadWithoutProofIsRefused403() {
        assertThat(status("PUT", InternalProtocol.WRITES_PATH, Headers.of(), 1 << 20), is(Optional.of(403)));
        assertThat(status("POST", InternalProtocol.RAFT_PREFIX + "request-vote", Headers.of(), 100), is(Optional.of(403)));
        assertThat("a stranger cannot start a cleanup", status("POST", InternalProtocol.CLEANUP_PATH, Headers.of(), 0),
                is(Optional.of(403)));
    }

    @Test
    void aSignedHeadGoesOnAndItsProofIsCheckedWithTheBody() {
        byte[] body = new byte[100];
        Map<String, String> signed = peer.sign(TestAuth.SELF, "PUT", InternalProtocol.WRITES_PATH, Map.of(), body);
        assertThat(status("PUT", InternalProtocol.WRITES_PATH, headers(signed), body.length), is(Optional.empty()));
    }

    @Test
    void aMalformedStaleRepeatedOrMisaddressedProofIsRefused403() {
        Map<String, String> signed = peer.sign(TestAuth.SELF, "PUT", InternalProtocol.WRITES_PATH, Map.of(), new byte[0]);
        Headers malformed = headers(signed);
        malformed.set(InternalAuth.AUTH_HEADER, "not-a-proof");
        assertThat(status("PUT", InternalProtocol.WRITES_PATH, malformed, 10), is(Optional.of(403)));

        InternalAuth stale = new InternalAuth(TestAuth.SECRET, "old", TestAuth.TOPOLOGY, () -> System.currentTimeMillis() - 120_000);
        assertThat(status("PUT", InternalProtocol.WRITES_PATH,
                headers(stale.sign(TestAuth.SELF, "PUT", InternalProtocol.WRITES_PATH, Map.of(), new byte[0])), 10), is(Optional.of(403)));

        Headers repeated = headers(signed).add(InternalAuth.NONCE_HEADER, "00");
        assertThat(status("PUT", InternalProtocol.WRITES_PATH, repeated, 10), is(Optional.of(403)));

        assertThat(status("PUT", InternalProtocol.WRITES_PATH,
                headers(peer.sign("http://127.0.0.1:3", "PUT", InternalProtocol.WRITES_PATH, Map.of(), new byte[0])), 10),
                is(Optional.of(403)));
    }

    /**
     * The attack the head check stops: every proof field well-formed (the node ids, the time and the
     * topology fingerprint are public) but the MAC made without the cluster secret, or for another
     * request. Before the proof was checked at the head, each of these went on to have its body read.
     */
    @Test
    void aForgedProofIsRefused403AtTheHead() {
        InternalAuth stranger = new InternalAuth(ClusterSecret.of("another secret, just as long as ours"), "http://127.0.0.1:2", TestAuth.TOPOLOGY,
                System::currentTimeMillis);
        assertThat(status("PUT", InternalProtocol.WRITES_PATH,
                headers(stranger.sign(TestAuth.SELF, "PUT", InternalProtocol.WRITES_PATH, Map.of(), new byte[0])), 1 << 20),
                is(Optional.of(403)));
        String append = InternalProtocol.RAFT_PREFIX + "append-entries";
        assertThat("a proof made for another route", status("POST", append,
                headers(peer.sign(TestAuth.SELF, "POST", InternalProtocol.READS_PATH, Map.of(), new byte[0])), 100),
                is(Optional.of(403)));
        assertThat("a proof made for another method", status("PUT", InternalProtocol.WRITES_PATH,
                headers(peer.sign(TestAuth.SELF, "POST", InternalProtocol.WRITES_PATH, Map.of(), new byte[0])), 100),
                is(Optional.of(403)));
        Headers otherBody = headers(peer.sign(TestAuth.SELF, "POST", append, Map.of(), new byte[0]));
        otherBody.set(InternalAuth.BODY_HEADER, InternalAuth.bodyDigest(new byte[100]));
        assertThat("a digest field changed after signing", status("POST", append, otherBody, 100), is(Optional.of(403)));
        Headers noDigest = headers(peer.sign(TestAuth.SELF, "POST", append, Map.of(), new byte[0]));
        noDigest.remove(InternalAuth.BODY_HEADER);
        assertThat("no digest field", status("POST", append, noDigest, 100), is(Optional.of(403)));
        Headers malformedDigest = headers(peer.sign(TestAuth.SELF, "POST", append, Map.of(), new byte[0]));
        malformedDigest.set(InternalAuth.BODY_HEADER, "x".repeat(4096));
        assertThat("a digest field that is no digest", status("POST", append, malformedDigest, 100), is(Optional.of(403)));
    }

    @Test
    void aBodyOverTheRoutesLimitIs413() {
        String vote = InternalProtocol.RAFT_PREFIX + "append-entries";
        assertThat(status("POST", vote, signed("POST", vote), MetadataGroup.RAFT_MESSAGE_BYTES_MAX), is(Optional.empty()));
        assertThat(status("POST", vote, signed("POST", vote), MetadataGroup.RAFT_MESSAGE_BYTES_MAX + 1L), is(Optional.of(413)));
        assertThat("a length not known yet is let through at the head", status("POST", vote, signed("POST", vote), -1),
                is(Optional.empty()));
        assertThat(status("POST", InternalProtocol.READS_PATH, signed("POST", InternalProtocol.READS_PATH),
                ReadBatchCodec.BYTES_MAX + 1L), is(Optional.of(413)));
        assertThat(status("POST", InternalProtocol.VERSIONS_PATH, signed("POST", InternalProtocol.VERSIONS_PATH),
                ReadBatchCodec.BYTES_MAX + 1L), is(Optional.of(413)));
        assertThat(status("GET", InternalProtocol.TIME_PATH, signed("GET", InternalProtocol.TIME_PATH),
                InternalBodyLimits.NO_BODY_BYTES_MAX + 1L), is(Optional.of(413)));
        assertThat(status("POST", InternalProtocol.CLEANUP_PATH, signed("POST", InternalProtocol.CLEANUP_PATH),
                InternalBodyLimits.NO_BODY_BYTES_MAX + 1L), is(Optional.of(413)));
        assertThat("record batches take what --max-body allows", status("PUT", InternalProtocol.WRITES_PATH,
                signed("PUT", InternalProtocol.WRITES_PATH), 1L << 30), is(Optional.empty()));
    }

    /**
     * The membership routes, reachable from outside like their siblings: a stranger is refused at
     * the head (403) whichever of them it asks, a signed body up to the metadata limit goes on, one
     * byte more is 413 at the head, and a body of unknown length is held to that limit.
     */
    @Test
    void theMembershipRoutesRefuseStrangersAndBodiesOverTheirLimitAtTheHead() {
        List<String> routes = List.of(InternalProtocol.META_JOIN_PATH, InternalProtocol.META_MEMBER_STATE_PATH,
                InternalProtocol.META_REPLACE_PATH, InternalProtocol.META_READ_PATH, InternalProtocol.DECOMMISSION_PATH,
                InternalProtocol.MEMBERSHIP_ABORT_PATH);
        for (String route : routes) {
            assertThat("a stranger on " + route, status("POST", route, Headers.of(), 10), is(Optional.of(403)));
            Headers signed = headers(peer.sign(TestAuth.SELF, "POST", route, Map.of(), new byte[0]));
            assertThat(route, status("POST", route, signed, InternalBodyLimits.META_BODY_BYTES_MAX), is(Optional.empty()));
            assertThat(route, status("POST", route, signed, InternalBodyLimits.META_BODY_BYTES_MAX + 1L), is(Optional.of(413)));
            assertThat(route, limit(route), is((long) InternalBodyLimits.META_BODY_BYTES_MAX));
        }
    }

    /** A body whose length the head does not announce is held to the same route limits while it is read. */
    @Test
    void aBodyOfUnknownLengthGetsTheRoutesLimit() {
        assertThat(limit(InternalProtocol.RAFT_PREFIX + "append-entries"), is((long) MetadataGroup.RAFT_MESSAGE_BYTES_MAX));
        assertThat(limit(InternalProtocol.META_PREFIX + "replication-factor"), is((long) InternalBodyLimits.META_BODY_BYTES_MAX));
        assertThat(limit(InternalProtocol.READS_PATH), is((long) ReadBatchCodec.BYTES_MAX));
        assertThat(limit(InternalProtocol.VERSIONS_PATH), is((long) ReadBatchCodec.BYTES_MAX));
        assertThat(limit(InternalProtocol.TIME_PATH), is((long) InternalBodyLimits.NO_BODY_BYTES_MAX));
        assertThat(limit(InternalProtocol.CLEANUP_PATH), is((long) InternalBodyLimits.NO_BODY_BYTES_MAX));
        assertThat("record batches take what --max-body allows", limit(InternalProtocol.WRITES_PATH), is(Long.MAX_VALUE));
        assertThat("a Paxos accept carries the proposed record, value and all", limit(InternalProtocol.PAXOS_ACCEPT_PATH),
                is(Long.MAX_VALUE));
    }

    private long limit(String path) {
        return handler.bodyBytesMax(new HeadAdmission.Head("POST", path, "", Headers.of(), -1,
                new InetSocketAddress("127.0.0.1", 9), Protocol.HTTP_1_1));
    }

    private Optional<Integer> status(String method, String path, Headers headers, long contentLength) {
        return handler.admit(new HeadAdmission.Head(method, path, "", headers, contentLength,
                new InetSocketAddress("127.0.0.1", 9), Protocol.HTTP_1_1)).map(Response::status);
    }

    private Headers signed(String method, String path) {
        return headers(peer.sign(TestAuth.SELF, method, path, Map.of(), new byte[0]));
    }

    private static Headers headers(Map<String, String> fields) {
        Headers headers = new Headers(fields.size());
        fields.forEach(headers::add);
        return headers;
    }
}
