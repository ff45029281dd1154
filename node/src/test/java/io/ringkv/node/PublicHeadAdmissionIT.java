package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.ops.BearerToken;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public API of a node with {@code --auth-file}, attacked by a stranger without a token: its
 * uploads are answered 401 at their headers, so they cannot hold the node's body memory budget
 * (before, each was buffered whole and only then refused, and a few dozen trickling ones made
 * every legitimate PUT a 503), and a token without the write scope gets 403 at its headers too.
 */
@Timeout(180)
class PublicHeadAdmissionIT {
    /** Larger than the 8 KiB a body's buffer starts with. */
    private static final String VALUE = "v".repeat(16 * 1024);

    @TempDir
    Path root;

    private ProcessCluster cluster;
    private String writer;
    private String reader;
    private String ops;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private int legitimate;

    @BeforeEach
    void start() throws Exception {
        Path tokens = root.resolve("auth.tokens");
        writer = addToken(tokens, "app", "read,write");
        reader = addToken(tokens, "dashboards", "read");
        ops = addToken(tokens, "ops", "admin");
        cluster = new ProcessCluster(root, 1, List.of("--auth-file", tokens.toString()));
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    private static String addToken(Path tokens, String name, String scopes) throws Exception {
        String token = BearerToken.generate();
        TokenFile.add(tokens, new Grant(name, AccessScope.parseList(scopes), null), BearerToken.sha256(token));
        return token;
    }

    @Test
    void strangersWithoutATokenCannotHoldTheBodyBudget() throws Exception {
        try (BodyHoldAttack attack = new BodyHoldAttack(cluster.port(0), "PUT", "/v0/entity?id=held", Map.of())) {
            int[][] waves = {{10, 16 << 20}, {16, 1 << 20}, {40, 64 << 10}, {8, 8 << 10}};
            for (int[] wave : waves) {
                attack.wave(wave[0], wave[1]);
                assertLegitimatePutsSucceed("after " + wave[0] + " held bodies of " + wave[1] + " bytes");
            }
        }
    }

    @Test
    void aTokenWithoutTheScopeIsRefusedAtItsHeaders() throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", cluster.port(0))) {
            socket.setSoTimeout(15_000);
            String head = "PUT /v0/entity?id=k HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + reader
                    + "\r\nContent-Length: " + (8 << 20) + "\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertThat("answered with no byte of the body sent", RawHttp.read(socket.getInputStream()).status(), is(403));
        }
        HttpRequest scrape = HttpRequest.newBuilder(URI.create(cluster.url(0) + "/metrics"))
                .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + ops).build();
        String metrics = client.send(scrape, HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher refused = java.util.regex.Pattern.compile("(?m)^ringkv_server_requests_refused_at_head_total (\\S+)$")
                .matcher(metrics);
        assertThat("the refusal is counted: " + metrics.lines().filter(l -> l.contains("refused")).toList(),
                refused.find() && Double.parseDouble(refused.group(1)) >= 1.0, is(true));
    }

    @Test
    void overHttp2AStrangersUploadIsAnsweredAtItsHeaders() throws Exception {
        try (RawH2 stranger = RawH2.open(cluster.port(0), 0)) {
            stranger.send(new HeadersFrame(1, stranger.request("PUT", "/v0/entity?id=held", "content-length",
                    Integer.toString(16 << 20)), false, true), new DataFrame(1, ByteBuffer.allocate(16 * 1024), false));
            List<String> seen = new ArrayList<>();
            while (seen.size() < 2) {
                Frame frame = stranger.next(Duration.ofSeconds(10));
                if (frame == null) {
                    seen.add("closed");
                    break;
                }
                if (frame.streamId() == 1 && frame instanceof HeadersFrame) {
                    seen.add("HEADERS :status=" + stranger.lastStatus());
                } else if (frame.streamId() == 1 && frame instanceof RstStreamFrame r) {
                    seen.add("RST_STREAM " + ErrorCode.of(r.errorCode()));
                }
            }
            assertThat(seen, is(List.of("HEADERS :status=401", "RST_STREAM " + ErrorCode.NO_ERROR)));
        }
        assertLegitimatePutsSucceed("after the HTTP/2 stream");
    }

    private void assertLegitimatePutsSucceed(String when) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            HttpRequest put = HttpRequest.newBuilder(URI.create(cluster.url(0) + "/v0/entity?id=legit-" + legitimate++))
                    .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + writer)
                    .PUT(HttpRequest.BodyPublishers.ofString(VALUE)).build();
            statuses.add(client.send(put, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        assertThat("legitimate PUTs " + when, statuses, everyItem(is(201)));
    }
}
