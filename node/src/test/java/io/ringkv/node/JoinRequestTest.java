package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import io.ringkv.cluster.ClusterSecret;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member that sheds load answers its status with {@code 503}: a node asking to join through it
 * asks again rather than giving up at the first answer (it did, and a replacement started during
 * a load burst exited 1 with "names no topology ... overloaded, retry later").
 */
class JoinRequestTest {
    private final AtomicInteger statusCalls = new AtomicInteger();
    private HttpServer member;

    @AfterEach
    void stop() {
        if (member != null) {
            member.stop(0);
        }
    }

    @Test
    void aMemberSheddingLoadIsAskedAgainUntilThePatienceRunsOut() throws Exception {
        member = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        member.createContext("/v0/status", exchange -> {
            statusCalls.incrementAndGet();
            byte[] body = "overloaded, retry later".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        member.start();
        String url = "http://127.0.0.1:" + member.getAddress().getPort();

        NodeStartException refused = assertThrows(NodeStartException.class, () -> JoinRequest.ask(url,
                "http://127.0.0.1:1", null, ClusterSecret.of("0123456789abcdef0123456789abcdef"), null,
                Duration.ofMillis(1_500), Duration.ofMillis(200)));

        assertThat("asked again while it shed load", statusCalls.get(), greaterThanOrEqualTo(3));
        assertThat(refused.getMessage(), containsString("overloaded, retry later"));
        assertThat(refused.getMessage(), containsString("start this node again once one of them serves"));
    }
}
