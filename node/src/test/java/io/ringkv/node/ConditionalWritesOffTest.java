package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code serve --no-conditional-writes} a PUT or DELETE carrying
 * {@code If-Match}, {@code If-None-Match} or {@code If-Unmodified-Since} is refused with 501 naming
 * the flag, and nothing is written; plain writes and conditional reads are unaffected. One node,
 * real sockets.
 */
class ConditionalWritesOffTest {
    @TempDir
    Path data;

    private Node node;
    private HttpClient client;

    @BeforeEach
    void startNode() throws Exception {
        node = Node.start(NodeConfig.singleNode(0, data).withConditionalWrites(false));
        client = HttpClient.newHttpClient();
    }

    @AfterEach
    void stopNode() {
        client.close();
        node.close();
    }

    private HttpResponse<String> send(String method, String id, String body, String... headers) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=" + id))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return client.send(builder.build(), BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Test
    void conditionalPutIsRefusedWith501AndPlainPutStillWrites() throws Exception {
        HttpResponse<String> refused = send("PUT", "k", "conditional", "If-None-Match", "*");
        assertThat(refused.statusCode(), is(501));
        assertThat(refused.body(), containsString("--no-conditional-writes"));
        assertThat(refused.body(), containsString("nothing was written"));
        assertThat(send("GET", "k", null).statusCode(), is(404));

        assertThat(send("PUT", "k", "plain").statusCode(), is(201));
        HttpResponse<String> read = send("GET", "k", null);
        assertThat(read.statusCode(), is(200));
        assertThat(read.body(), is("plain"));
    }

    @Test
    void everyPreconditionOnPutAndDeleteIsRefusedAndWritesNothing() throws Exception {
        assertThat(send("PUT", "k", "v1").statusCode(), is(201));
        String tag = send("GET", "k", null).headers().firstValue("ETag").orElseThrow();

        HttpResponse<String> put = send("PUT", "k", "v2", "If-Match", tag);
        assertThat(put.statusCode(), is(501));
        assertThat(put.body(), containsString("If-Match on PUT"));
        HttpResponse<String> since = send("PUT", "k", "v2", "If-Unmodified-Since", "Sun, 06 Nov 2044 08:49:37 GMT");
        assertThat(since.statusCode(), is(501));
        assertThat(since.body(), containsString("If-Unmodified-Since on PUT"));
        HttpResponse<String> delete = send("DELETE", "k", null, "If-Match", tag);
        assertThat(delete.statusCode(), is(501));
        assertThat(delete.body(), containsString("If-Match on DELETE"));

        HttpResponse<String> read = send("GET", "k", null);
        assertThat(read.body(), is("v1"));
        assertThat(read.headers().firstValue("ETag").orElseThrow(), is(tag));
        // A conditional read is not a write: it still answers 304.
        assertThat(send("GET", "k", null, "If-None-Match", tag).statusCode(), is(304));
    }
}
