package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import io.ringkv.node.SharedNodeKeys.OwnNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Expiry on one node ({@code PUT ...&ttl=SECONDS}), over real sockets, HTTP/1.1 and h2c: the
 * remaining time on reads, 404 and absence from ranges once expired, 400 for a bad {@code ttl}.
 * Waits for an expiry by polling until the key reads as absent, within a generous bound; no
 * assertion depends on how long anything took.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
@Timeout(120)
class ExpiryTest {
    private static final String EXPIRES_IN = "X-Ringkv-Expires-In";
    private static final long EXPIRY_WAIT_MILLIS = 30_000;

    /** The node of every test, of both protocols, not marked OwnNode; each test's keys are its own (SharedNodeKeys). */
    @RegisterExtension
    static final SharedNode<Node> NODES = SharedNode.of(data -> NodeConfig.singleNode(0, data));

    @Parameter
    String protocol;

    private NodeRequests requests;

    @BeforeEach
    void openRequests(Node node, SharedNodeKeys keys) {
        requests = new NodeRequests(node, keys, protocol);
    }

    @AfterEach
    void closeRequests() {
        requests.close();
    }

    @Test
    void aValueWithATtlIsReadWithTheSecondsItHasLeft() throws Exception {
        assertThat(send("PUT", "/v0/entity?id=session&ttl=3600", "alice").statusCode(), is(201));

        HttpResponse<String> get = send("GET", "/v0/entity?id=session", null);
        assertThat(get.statusCode(), is(200));
        assertThat(get.body(), is("alice"));
        assertThat(secondsLeft(get), allOf(greaterThanOrEqualTo(1L), lessThanOrEqualTo(3600L)));

        HttpResponse<String> head = send("HEAD", "/v0/entity?id=session", null);
        assertThat(head.statusCode(), is(200));
        assertThat(secondsLeft(head), allOf(greaterThanOrEqualTo(1L), lessThanOrEqualTo(3600L)));
    }

    /** RFC 9110 §15.4.5: a 304 carries what a 200 would have of the caching metadata; the time left is such. */
    @Test
    void aNotModifiedAnswerCarriesTheTimeLeftToo() throws Exception {
        send("PUT", "/v0/entity?id=session&ttl=3600", "alice");
        String tag = send("GET", "/v0/entity?id=session", null).headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> notModified = send("GET", "/v0/entity?id=session", null, "If-None-Match", tag);
        assertThat(notModified.statusCode(), is(304));
        assertThat(secondsLeft(notModified), allOf(greaterThanOrEqualTo(1L), lessThanOrEqualTo(3600L)));
    }

    @Test
    void aValueWithoutTtlCarriesNoExpiryField() throws Exception {
        send("PUT", "/v0/entity?id=plain", "v");
        HttpResponse<String> get = send("GET", "/v0/entity?id=plain", null);
        assertThat(get.statusCode(), is(200));
        assertThat(get.headers().firstValue(EXPIRES_IN), is(Optional.empty()));
    }

    @OwnNode
    @Test
    void anExpiredKeyReadsAsAbsentAndRangesSkipIt() throws Exception {
        send("PUT", "/v0/entity?id=k0", "zero");
        send("PUT", "/v0/entity?id=k1&ttl=2", "one");
        send("PUT", "/v0/entity?id=k2", "two");
        String tag = send("GET", "/v0/entity?id=k1", null).headers().firstValue("ETag").orElse("\"0\"");

        awaitAbsent("k1");

        HttpResponse<String> get = send("GET", "/v0/entity?id=k1", null);
        assertThat(get.statusCode(), is(404));
        assertThat(get.headers().firstValue("ETag"), is(Optional.empty()));
        assertThat(get.headers().firstValue(EXPIRES_IN), is(Optional.empty()));
        assertThat("a conditional read of the expired version", send("GET", "/v0/entity?id=k1", null, "If-None-Match", tag)
                .statusCode(), is(404));
        assertThat(send("HEAD", "/v0/entity?id=k1", null).statusCode(), is(404));
        // A range body is the chunks key '\n' value one after the other.
        assertThat(send("GET", "/v0/entities?start=k&end=l", null).body(), is("k0\nzerok2\ntwo"));
        assertThat(send("GET", "/v0/entities?start=k&end=l&local=true", null).body(), is("k0\nzerok2\ntwo"));
        assertThat(send("GET", "/v0/entities?start=k&end=l&keysOnly=true", null).body(), is("k0\nk2\n"));
        HttpResponse<String> page = send("GET", "/v0/entities?start=k&end=l&limit=2", null);
        assertThat("the expired key takes no place in a page", page.body(), is("k0\nzerok2\ntwo"));
        assertThat("and no next page follows", page.headers().firstValue("Link"), is(Optional.empty()));
    }

    /**
     * A later PUT without ttl makes a value that never expires: the earlier write's expiry no longer
     * applies. The key {@code witness}, written after with the same ttl, tells when that expiry passed.
     */
    @Test
    void aLaterPutWithoutTtlReplacesTheExpiringValue() throws Exception {
        send("PUT", "/v0/entity?id=kept&ttl=1", "expiring");
        assertThat(send("PUT", "/v0/entity?id=kept", "forever").statusCode(), is(201));
        send("PUT", "/v0/entity?id=witness&ttl=1", "w");

        awaitAbsent("witness");

        HttpResponse<String> get = send("GET", "/v0/entity?id=kept", null);
        assertThat(get.statusCode(), is(200));
        assertThat(get.body(), is("forever"));
        assertThat(get.headers().firstValue(EXPIRES_IN), is(Optional.empty()));
    }

    @Test
    void anExpiredKeyCanBeWrittenAgain() throws Exception {
        send("PUT", "/v0/entity?id=again&ttl=1", "first");
        awaitAbsent("again");
        assertThat(send("PUT", "/v0/entity?id=again", "second").statusCode(), is(201));
        assertThat(send("GET", "/v0/entity?id=again", null).body(), is("second"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "abc", "1.5", "", "+5", "315360001", "99999999999999999999", "10s"})
    void aBadTtlIs400WithAMessageAndWritesNothing(String ttl) throws Exception {
        HttpResponse<String> put = send("PUT", "/v0/entity?id=bad&ttl=" + ttl, "v");
        assertThat(put.statusCode(), is(400));
        assertThat(put.body(), containsString("ttl"));
        assertThat(send("GET", "/v0/entity?id=bad", null).statusCode(), is(404));
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "HEAD", "DELETE"})
    void aTtlOnAnythingButPutIs400(String method) throws Exception {
        send("PUT", "/v0/entity?id=k", "v");
        HttpResponse<String> answer = send(method, "/v0/entity?id=k&ttl=5", null);
        assertThat(answer.statusCode(), is(400));
        if (!method.equals("HEAD")) {
            assertThat(answer.body(), containsString("ttl"));
        }
        assertThat("nothing was deleted", send("GET", "/v0/entity?id=k", null).statusCode(), is(200));
    }

    private HttpResponse<String> send(String method, String target, String body, String... headers) throws Exception {
        return requests.text(method, target, body, headers);
    }

    private static long secondsLeft(HttpResponse<?> response) {
        return Long.parseLong(response.headers().firstValue(EXPIRES_IN)
                .orElseThrow(() -> new AssertionError("no " + EXPIRES_IN + " on a read of an expiring key")));
    }

    private void awaitAbsent(String key) throws Exception {
        await(key + " expired", () -> {
            try {
                return send("GET", "/v0/entity?id=" + key, null).statusCode() == 404;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + EXPIRY_WAIT_MILLIS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("not within " + EXPIRY_WAIT_MILLIS + " ms: " + what);
            }
            Thread.sleep(100);
        }
    }
}
