package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Conditional writes on one node (RFC 9110 §13.1): {@code If-None-Match: *} creates only if absent,
 * {@code If-Match} writes or deletes only the version named, {@code If-Unmodified-Since} only an
 * unmodified one; 412 with the current {@code ETag} otherwise, 400 for a malformed field, and
 * nothing written in either case. One node, real sockets, HTTP/1.1 and h2c.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
class ConditionalWriteTest {
    private static final String STRONG_TAG = "\"[0-9a-f]+\"";
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);

    /**
     * One node for every test of both protocols (a node per test cost the class about a second a
     * test, most of it the node's stop); each test's keys are its own (SharedNodeKeys).
     */
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

    private HttpResponse<String> send(String method, String id, String body, String... headers) throws Exception {
        return requests.text(method, "/v0/entity?id=" + id, body, headers);
    }

    private String tagOf(String id) throws Exception {
        HttpResponse<String> got = send("GET", id, null);
        assertThat(got.statusCode(), is(200));
        return got.headers().firstValue("ETag").orElseThrow();
    }

    private void assertValue(String id, String value) throws Exception {
        HttpResponse<String> got = send("GET", id, null);
        assertThat(got.statusCode(), is(200));
        assertThat(got.body(), is(value));
    }

    @Test
    void ifNoneMatchStarCreatesOnlyWhenAbsent() throws Exception {
        HttpResponse<String> created = send("PUT", "fresh", "first", "If-None-Match", "*");
        assertThat(created.statusCode(), is(201));
        String tag = created.headers().firstValue("ETag").orElseThrow();
        assertThat(tag, matchesPattern(STRONG_TAG));
        assertThat("the answer names the version stored", tagOf("fresh"), is(tag));

        HttpResponse<String> again = send("PUT", "fresh", "second", "If-None-Match", "*");
        assertThat(again.statusCode(), is(412));
        assertThat(again.headers().firstValue("ETag").orElseThrow(), is(tag));
        assertValue("fresh", "first");
    }

    @Test
    void aDeletedKeyCountsAsAbsent() throws Exception {
        assertThat(send("PUT", "gone", "v").statusCode(), is(201));
        assertThat(send("DELETE", "gone", null).statusCode(), is(202));
        assertThat(send("PUT", "gone", "back", "If-None-Match", "*").statusCode(), is(201));
        assertValue("gone", "back");
    }

    @Test
    void anExpiredKeyCountsAsAbsent() throws Exception {
        assertThat(send("PUT", "brief&ttl=1", "short-lived").statusCode(), is(201));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (send("GET", "brief", null).statusCode() != 404) {
            assertThat("expired within 30 s", System.nanoTime() < deadline, is(true));
            Thread.sleep(100);
        }
        assertThat(send("PUT", "brief", "after", "If-None-Match", "*").statusCode(), is(201));
        assertValue("brief", "after");
    }

    @Test
    void ifMatchWritesOnlyTheVersionNamed() throws Exception {
        assertThat(send("PUT", "k", "v1").statusCode(), is(201));
        String v1 = tagOf("k");
        HttpResponse<String> written = send("PUT", "k", "v2", "If-Match", v1);
        assertThat(written.statusCode(), is(201));
        String v2 = written.headers().firstValue("ETag").orElseThrow();
        assertThat(v2, not(v1));

        HttpResponse<String> stale = send("PUT", "k", "v3", "If-Match", v1);
        assertThat(stale.statusCode(), is(412));
        assertThat(stale.headers().firstValue("ETag").orElseThrow(), is(v2));
        assertThat(stale.body(), containsString("precondition failed"));
        assertValue("k", "v2");

        assertThat("a list naming the current version", send("PUT", "k", "v3", "If-Match", v1 + ", " + v2).statusCode(), is(201));
        assertThat("a weak tag never matches strongly", send("PUT", "k", "v4", "If-Match", "W/" + tagOf("k")).statusCode(), is(412));
        assertThat("* matches any value", send("PUT", "k", "v4", "If-Match", "*").statusCode(), is(201));
        assertValue("k", "v4");
    }

    @Test
    void ifMatchOnAnAbsentKeyFails() throws Exception {
        assertThat(send("PUT", "none", "v", "If-Match", "*").statusCode(), is(412));
        assertThat(send("PUT", "none", "v", "If-Match", "\"1\"").statusCode(), is(412));
        assertThat(send("GET", "none", null).statusCode(), is(404));
    }

    @Test
    void ifMatchDeletesOnlyTheVersionNamed() throws Exception {
        assertThat(send("PUT", "d", "v1").statusCode(), is(201));
        String v1 = tagOf("d");
        assertThat(send("PUT", "d", "v2").statusCode(), is(201));
        HttpResponse<String> stale = send("DELETE", "d", null, "If-Match", v1);
        assertThat(stale.statusCode(), is(412));
        assertValue("d", "v2");
        assertThat(send("DELETE", "d", null, "If-Match", tagOf("d")).statusCode(), is(204));
        assertThat(send("GET", "d", null).statusCode(), is(404));
        assertThat("nothing left to match", send("DELETE", "d", null, "If-Match", "*").statusCode(), is(412));
    }

    @Test
    void ifNoneMatchOnADeleteOfAPresentKeyFails() throws Exception {
        assertThat(send("PUT", "p", "v").statusCode(), is(201));
        assertThat(send("DELETE", "p", null, "If-None-Match", "*").statusCode(), is(412));
        assertThat(send("DELETE", "p", null, "If-None-Match", tagOf("p")).statusCode(), is(412));
        assertValue("p", "v");
        assertThat(send("DELETE", "p", null, "If-None-Match", "\"other\"").statusCode(), is(204));
    }

    @Test
    void ifUnmodifiedSinceWritesOnlyAnUnmodifiedKey() throws Exception {
        assertThat(send("PUT", "u", "v1").statusCode(), is(201));
        HttpResponse<String> tooOld = send("PUT", "u", "v2", "If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT");
        assertThat(tooOld.statusCode(), is(412));
        assertValue("u", "v1");
        String later = IMF_FIXDATE.format(Instant.now().plus(Duration.ofDays(1)));
        assertThat(send("PUT", "u", "v2", "If-Unmodified-Since", later).statusCode(), is(201));
        assertValue("u", "v2");
        assertThat("the obsolete asctime form", send("DELETE", "u", null, "If-Unmodified-Since", "Sun Nov  6 08:49:37 1994")
                .statusCode(), is(412));
        assertThat("no value, no date to compare (RFC 9110 §13.1.4)",
                send("PUT", "never", "v", "If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT").statusCode(), is(201));
    }

    @ParameterizedTest
    @ValueSource(strings = {"If-Match: abc", "If-Match: \"a\" \"b\"", "If-None-Match: W/abc", "If-None-Match: *, \"a\"",
            "If-Unmodified-Since: yesterday", "If-Unmodified-Since: Sun, 31 Nov 1994 08:49:37 GMT"})
    void aMalformedConditionIs400AndWritesNothing(String field) throws Exception {
        assertThat(send("PUT", "m", "before").statusCode(), is(201));
        String name = field.substring(0, field.indexOf(':'));
        String value = field.substring(field.indexOf(':') + 2);
        HttpResponse<String> put = send("PUT", "m", "after", name, value);
        assertThat(put.statusCode(), is(400));
        assertThat(put.body(), containsString(name));
        assertThat(send("DELETE", "m", null, name, value).statusCode(), is(400));
        assertValue("m", "before");
    }

    @Test
    void plainWritesAnswerAsBefore() throws Exception {
        HttpResponse<String> put = send("PUT", "plain", "v");
        assertThat(put.statusCode(), is(201));
        assertThat(put.headers().firstValue("ETag").isPresent(), is(false));
        assertThat(send("DELETE", "plain", null).statusCode(), is(202));
    }
}
