package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Versions on reads (RFC 9110 §8.8, §13.1.2): {@code ETag} and {@code Last-Modified} on every
 * {@code GET} and {@code HEAD} of a key, {@code 304} for {@code If-None-Match} naming the current
 * version; one node, real sockets, HTTP/1.1 and h2c.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
class ConditionalGetTest {
    /** RFC 9110 §8.8.3: a strong entity tag is a quoted opaque string. */
    private static final String STRONG_TAG = "\"[0-9a-f]+\"";
    /** RFC 9110 §5.6.7 IMF-fixdate, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    private static final String IMF_FIXDATE = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT";

    /** One node for every test of both protocols; each test's keys are its own (SharedNodeKeys). */
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

    private HttpResponse<byte[]> send(String method, String target, String body, String... headers) throws Exception {
        return requests.bytes(method, target, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
    }

    private String putAndTag(String id, String value) throws Exception {
        assertThat(send("PUT", "/v0/entity?id=" + id, value).statusCode(), is(201));
        HttpResponse<byte[]> got = send("GET", "/v0/entity?id=" + id, null);
        assertThat(got.statusCode(), is(200));
        return got.headers().firstValue("ETag").orElseThrow();
    }

    @Test
    void aGetCarriesAStrongETagAndAnImfFixdateLastModifiedNotInTheFuture() throws Exception {
        Instant before = Instant.now().minusSeconds(1);
        assertThat(send("PUT", "/v0/entity?id=k", "v").statusCode(), is(201));
        HttpResponse<byte[]> got = send("GET", "/v0/entity?id=k", null);
        assertThat(got.statusCode(), is(200));
        assertThat(new String(got.body(), StandardCharsets.UTF_8), is("v"));
        assertThat(got.headers().firstValue("ETag").orElseThrow(), matchesPattern(STRONG_TAG));
        String lastModified = got.headers().firstValue("Last-Modified").orElseThrow();
        assertThat(lastModified, matchesPattern(IMF_FIXDATE));
        Instant modified = ZonedDateTime.parse(lastModified, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        Instant after = Instant.now();
        // RFC 9110 §8.8.2.1: never later than the answer's own time; and the write happened after 'before'.
        assertThat(modified, lessThanOrEqualTo(after));
        assertThat(before, lessThanOrEqualTo(modified));
    }

    @Test
    void theSameVersionKeepsItsTagAndANewerWriteChangesIt() throws Exception {
        String first = putAndTag("k", "one");
        assertThat(send("GET", "/v0/entity?id=k", null).headers().firstValue("ETag").orElseThrow(), is(first));
        String second = putAndTag("k", "two");
        assertThat(second, is(not(first)));
        String third = putAndTag("k", "one");
        assertThat("the same bytes written again are another version", third, is(not(first)));
    }

    @Test
    void ifNoneMatchNamingTheCurrentVersionIs304WithTheTagAndNoBody() throws Exception {
        String tag = putAndTag("k", "value");
        HttpResponse<byte[]> notModified = send("GET", "/v0/entity?id=k", null, "If-None-Match", tag);
        assertThat(notModified.statusCode(), is(304));
        assertThat(notModified.body().length, is(0));
        assertThat(notModified.headers().firstValue("ETag").orElseThrow(), is(tag));
    }

    @ParameterizedTest
    @ValueSource(strings = {"*", "W/%s", "\"other\", %s", "\"a\",%s , \"b\""})
    void ifNoneMatchListsAndWeakFormsMatchAsRfc9110Says(String template) throws Exception {
        String tag = putAndTag("k", "value");
        assertThat(send("GET", "/v0/entity?id=k", null, "If-None-Match", template.formatted(tag)).statusCode(), is(304));
    }

    @Test
    void ifNoneMatchNamingAnOlderVersionGetsTheNewOne() throws Exception {
        String old = putAndTag("k", "old");
        String current = putAndTag("k", "new");
        HttpResponse<byte[]> got = send("GET", "/v0/entity?id=k", null, "If-None-Match", old);
        assertThat(got.statusCode(), is(200));
        assertThat(new String(got.body(), StandardCharsets.UTF_8), is("new"));
        assertThat(got.headers().firstValue("ETag").orElseThrow(), is(current));
    }

    @Test
    void anAbsentOrDeletedKeyIs404WithoutATagWhateverTheCondition() throws Exception {
        HttpResponse<byte[]> absent = send("GET", "/v0/entity?id=never", null, "If-None-Match", "*");
        assertThat(absent.statusCode(), is(404));
        assertThat(absent.headers().firstValue("ETag"), is(Optional.empty()));
        String tag = putAndTag("gone", "v");
        assertThat(send("DELETE", "/v0/entity?id=gone", null).statusCode(), is(202));
        assertThat(send("GET", "/v0/entity?id=gone", null, "If-None-Match", tag).statusCode(), is(404));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "\"unterminated", "W/abc", "\"a\" \"b\"", "\"a\",, *", "\"quo\"te\""})
    void aMalformedIfNoneMatchIs400WithAMessage(String field) throws Exception {
        putAndTag("k", "v");
        HttpResponse<byte[]> response = send("GET", "/v0/entity?id=k", null, "If-None-Match", field);
        assertThat(response.statusCode(), is(400));
        assertThat(new String(response.body(), StandardCharsets.UTF_8), containsString("If-None-Match"));
    }

    @Test
    void headAnswersLikeGetWithoutTheBody() throws Exception {
        String tag = putAndTag("k", "twelve bytes");
        HttpResponse<byte[]> head = send("HEAD", "/v0/entity?id=k", null);
        assertThat(head.statusCode(), is(200));
        assertThat(head.body().length, is(0));
        assertThat(head.headers().firstValue("ETag").orElseThrow(), is(tag));
        assertThat(head.headers().firstValue("Last-Modified").orElseThrow(), matchesPattern(IMF_FIXDATE));
        assertThat(head.headers().firstValue("Content-Length").orElseThrow(), is("12"));
        assertThat(send("HEAD", "/v0/entity?id=k", null, "If-None-Match", tag).statusCode(), is(304));
        assertThat(send("HEAD", "/v0/entity?id=absent", null).statusCode(), is(404));
    }
}
