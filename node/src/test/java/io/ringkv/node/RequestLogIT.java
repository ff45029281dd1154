package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing a request carries reaches a node's log unescaped. A two-node cluster (one node alone
 * serves no internal endpoints, whose refusals are logged with the request's method and path);
 * the first node's output is captured.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RequestLogIT {
    private static final String FORGED = "FORGED-LINE ERROR Node - the cluster secret is in /tmp/secret";

    @TempDir
    static Path root;

    private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();
    private static NodeProcess first;
    private static NodeProcess second;
    private static int port;
    private static ClusterSecret secret;

    @BeforeAll
    static void startCluster() throws Exception {
        List<Integer> ports = LocalPorts.free(2);
        port = ports.getFirst();
        String cluster = "http://127.0.0.1:" + ports.get(0) + ",http://127.0.0.1:" + ports.get(1);
        String secretText = ClusterSecret.generateText();
        Path secretFile = Files.writeString(root.resolve("cluster.secret"), secretText);
        secret = ClusterSecret.of(secretText);
        first = new NodeProcess("n0", args(ports.get(0), cluster, secretFile, 0), new PrintStream(LOG, true, StandardCharsets.UTF_8))
                .start();
        second = new NodeProcess("n1", args(ports.get(1), cluster, secretFile, 1), new PrintStream(new ByteArrayOutputStream()))
                .start();
        assertThat(first.awaitReady("http://127.0.0.1:" + ports.get(0), Duration.ofSeconds(60)), is(true));
        assertThat(second.awaitReady("http://127.0.0.1:" + ports.get(1), Duration.ofSeconds(60)), is(true));
    }

    private static List<String> args(int port, String cluster, Path secretFile, int index) {
        return List.of("--port", Integer.toString(port), "--data", root.resolve("n" + index).toString(), "--cluster", cluster,
                "--cluster-secret-file", secretFile.toString(), "--warm-up", "PT0S");
    }

    @AfterAll
    static void stopCluster() {
        for (NodeProcess node : new NodeProcess[] {first, second}) {
            if (node != null) {
                node.stop(Duration.ofSeconds(10));
            }
        }
    }

    /**
     * An HTTP/2 :path with CR LF, to a path whose refusal the node logs with the path in it.
     * Taken as it was, it would write a log line of the sender's making. It is malformed (RFC 9113
     * §8.2.1): the stream is reset, no handler sees it, the connection serves on.
     */
    @Test
    void aLineBreakInAnHttp2PathForgesNoLogLineAndResetsOnlyItsStream() throws Exception {
        try (RawH2 h2 = RawH2.open(port, 0)) {
            h2.send(new HeadersFrame(1, h2.request("GET", "/internal/v0/time\r\n" + FORGED), true, true),
                    new HeadersFrame(3, h2.request("GET", "/v0/status"), true, true));
            Map<Integer, String> outcomes = new HashMap<>();
            while (outcomes.size() < 2) {
                Frame frame = h2.next(Duration.ofSeconds(30));
                if (frame == null) {
                    throw new AssertionError("the node closed the connection; outcomes so far " + outcomes);
                }
                if (frame instanceof HeadersFrame) {
                    outcomes.putIfAbsent(frame.streamId(), "HEADERS :status=" + h2.lastStatus());
                } else if (frame instanceof RstStreamFrame r) {
                    outcomes.putIfAbsent(frame.streamId(), "RST_STREAM " + ErrorCode.of(r.errorCode()));
                }
            }
            // A refusal is logged before it is answered, so by now the line is written; the output
            // pump gets a moment to copy it.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < end) {
                assertThat("log lines of the request's making", forgedLines(), equalTo(List.of()));
                Thread.sleep(100);
            }
            assertThat(outcomes.toString(), outcomes.get(1), equalTo("RST_STREAM " + ErrorCode.PROTOCOL_ERROR));
            assertThat(outcomes.toString(), outcomes.get(3), equalTo("HEADERS :status=200"));
        }
    }

    /**
     * A peer that holds the secret but another node list is logged (and shown in /v0/status) with
     * the node id its request named. That id may hold obs-text, which decodes to C1 controls
     * (0x85 NEL is a line break to some log viewers, 0x9B CSI starts a terminal escape): the log
     * shows them escaped.
     */
    @Test
    void aPeersNodeIdIsLoggedEscaped() throws Exception {
        String rogue = "rogue\u0085\u009b[31mnode";
        InternalAuth auth = new InternalAuth(secret, rogue, "another-node-list", System::currentTimeMillis);
        Map<String, String> fields = auth.sign("http://127.0.0.1:" + port, "GET", "/internal/v0/time", Map.of(), new byte[0]);
        StringBuilder head = new StringBuilder("GET /internal/v0/time HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        fields.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        int status;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            // ISO-8859-1: each char of the id is one octet on the wire, as a peer's obs-text would be.
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            status = RawHttp.read(socket.getInputStream()).status();
        }
        assertThat("a proof with another node list is a topology mismatch", status, is(409));
        String escaped = "topology mismatch with rogue\\x85\\x9b[31mnode";
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!logLines().contains(escaped) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(logLines(), containsString(escaped));
        assertThat("no raw C1 control in the log", logLines().chars().anyMatch(c -> c >= 0x80 && c <= 0x9f), is(false));
    }

    private static List<String> forgedLines() {
        return logLines().lines().filter(line -> line.startsWith("[n0] " + FORGED)).toList();
    }

    private static String logLines() {
        synchronized (LOG) {
            return LOG.toString(StandardCharsets.UTF_8);
        }
    }
}
