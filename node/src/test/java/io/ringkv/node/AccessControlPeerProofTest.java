package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.Headers;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer's proof in place of a token on a node's admin pages ({@link PeerSignature}), judged at
 * the request's head: a forged one is refused there even when the request announces a body, and
 * a valid one lets the request through to have its body compared with the digest it names.
 */
class AccessControlPeerProofTest {
    private static final String SELF = "n-self";
    private static final String TOPOLOGY = "0123456789abcdef";
    private static final ClusterSecret SECRET = ClusterSecret.of("the cluster's secret, long enough");
    private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 9);

    @TempDir
    Path dir;
    private AccessControl control;
    private final InternalAuth peer = new InternalAuth(SECRET, "n-peer", TOPOLOGY, System::currentTimeMillis);

    @BeforeEach
    void start() throws Exception {
        Path file = dir.resolve("tokens");
        TokenFile.add(file, new Grant("ops", EnumSet.of(AccessScope.ADMIN), null), BearerToken.sha256(BearerToken.generate()));
        control = new AccessControl(TokenRegistry.load(file), request -> CompletableFuture.completedFuture(Response.text(200, "ok")));
        control.peers(new PeerSignature(new InternalAuth(SECRET, SELF, TOPOLOGY, System::currentTimeMillis)));
    }

    /**
     * The attack: a GET of the metrics with proof fields made without the secret, announcing a
     * body. Before the proof was checked at the head, such a request was let through to have its
     * body read, the proof being judged only with it.
     */
    @Test
    void aForgedPeerProofIs401AtTheHeadEvenWithABody() {
        InternalAuth stranger = new InternalAuth(ClusterSecret.of("a secret guessed by a stranger"), "n-peer", TOPOLOGY,
                System::currentTimeMillis);
        HeadAdmission.Verdict verdict = control.verdict(head(stranger.sign(SELF, "GET", MetricsEndpoint.PATH, Map.of(), new byte[0]), 4096));
        assertThat(verdict.answer() == null ? null : verdict.answer().status(), is(401));
    }

    @Test
    void aValidPeerProofPassesTheHeadAndItsBodyMustBeTheOneItNames() throws Exception {
        Map<String, String> signed = peer.sign(SELF, "GET", MetricsEndpoint.PATH, Map.of(), new byte[0]);
        assertThat(control.verdict(head(signed, 0)).answer(), is(nullValue()));
        assertThat("a body awaited", control.verdict(head(signed, 16)).answer(), is(nullValue()));
        assertThat(control.handle(request(signed, new byte[0])).toCompletableFuture().join().status(), is(200));
        assertThat("another body than the digest names", control.handle(request(signed, new byte[16]))
                .toCompletableFuture().join().status(), is(401));
    }

    private static HeadAdmission.Head head(Map<String, String> fields, long contentLength) {
        return new HeadAdmission.Head("GET", MetricsEndpoint.PATH, "", headers(fields), contentLength, REMOTE, Protocol.HTTP_1_1);
    }

    private static Request request(Map<String, String> fields, byte[] body) {
        return new Request("GET", MetricsEndpoint.PATH, "", headers(fields), body, REMOTE, Protocol.HTTP_1_1);
    }

    private static Headers headers(Map<String, String> fields) {
        Headers headers = new Headers(fields.size());
        fields.forEach(headers::add);
        return headers;
    }
}
