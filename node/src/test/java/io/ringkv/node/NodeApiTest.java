package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.node.SharedNodeKeys.OwnNode;
import io.ringkv.ops.JsonText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The public API of one node, over real sockets, against a real RocksDB store; every test runs
 * over HTTP/1.1 (the JDK's client) and over h2c by prior knowledge (ringkv's client), and checks
 * that each answer came over the protocol under test.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
class NodeApiTest {
    private static final long MAX_BODY = 64 * 1024;

    @TempDir
    Path data;

    @Parameter
    String protocol;

    /** The node of every test, of both protocols, not marked OwnNode; each test's keys are its own (SharedNodeKeys). */
    @RegisterExtension
    static final SharedNode<Node> NODES = SharedNode.of(data -> NodeConfig.singleNode(0, data).withMaxBodyBytes(MAX_BODY));

    private Node node;
    private NodeRequests requests;

    @BeforeEach
    void openRequests(Node testNode, SharedNodeKeys keys) {
        node = testNode;
        requests = new NodeRequests(testNode, keys, protocol);
    }

    @AfterEach
    void closeRequests() {
        requests.close();
    }

    private HttpResponse<byte[]> send(String method, String target, byte[] body) throws IOException, InterruptedException {
        return requests.bytes(method, target, body);
    }

    private int status(String method, String target) throws Exception {
        return send(method, target, null).statusCode();
    }

    private void put(String id, byte[] value) throws Exception {
        assertThat(send("PUT", "/v0/entity?id=" + id, value).statusCode(), is(201));
    }

    @Test
    void putThenGetReturnsExactlyTheStoredBytes() throws Exception {
        byte[] value = new byte[4096];
        new Random(42).nextBytes(value);
        put("k1", value);
        HttpResponse<byte[]> got = send("GET", "/v0/entity?id=k1", null);
        assertThat(got.statusCode(), is(200));
        assertThat(got.body(), equalTo(value));
    }

    @Test
    void keysAreTheExactPercentDecodedBytes() throws Exception {
        put("%FF", "ff".getBytes(StandardCharsets.UTF_8));
        assertThat("%FE is another key than %FF", status("GET", "/v0/entity?id=%FE"), is(404));
        assertThat(send("GET", "/v0/entity?id=%FF", null).body(), equalTo("ff".getBytes(StandardCharsets.UTF_8)));
        put("%C3%A9", "e-acute".getBytes(StandardCharsets.UTF_8));
        assertThat(send("GET", "/v0/entity?id=%c3%a9", null).body(), equalTo("e-acute".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void truncatedOrNonHexPercentEscapesAre400() throws Exception {
        // The JDK client refuses to send such a URI, so these go over a raw socket.
        assertThat(RawHttp.get(node.port(), "/v0/entity?id=%G1").status(), is(400));
        assertThat(RawHttp.get(node.port(), "/v0/entity?id=ab%F").status(), is(400));
        assertThat(RawHttp.get(node.port(), "/v0/entities?start=a&end=%").status(), is(400));
    }

    @OwnNode
    @Test
    void keysBeyondTheLimitAre400AndTheLimitItselfIsAccepted() throws Exception {
        String longest = "k".repeat(PublicApi.KEY_BYTES_MAX);
        put(longest, "v".getBytes(StandardCharsets.UTF_8));
        assertThat(status("GET", "/v0/entity?id=" + longest), is(200));
        HttpResponse<byte[]> tooLong = send("PUT", "/v0/entity?id=" + longest + "k", "v".getBytes(StandardCharsets.UTF_8));
        assertThat(tooLong.statusCode(), is(400));
        assertThat(new String(tooLong.body(), StandardCharsets.UTF_8), org.hamcrest.Matchers.containsString("at most 4096 bytes"));
    }

    @Test
    void emptyValueIsStoredAndReturned() throws Exception {
        put("empty", new byte[0]);
        HttpResponse<byte[]> got = send("GET", "/v0/entity?id=empty", null);
        assertThat(got.statusCode(), is(200));
        assertThat(got.body().length, is(0));
    }

    @Test
    void overwriteReturnsTheLatestValue() throws Exception {
        put("k", "one".getBytes(StandardCharsets.UTF_8));
        put("k", "two".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(send("GET", "/v0/entity?id=k", null).body(), StandardCharsets.UTF_8), is("two"));
    }

    @Test
    void missingKeyIs404() throws Exception {
        assertThat(status("GET", "/v0/entity?id=absent"), is(404));
    }

    @Test
    void deleteIs202AndHidesTheKey() throws Exception {
        put("gone", "x".getBytes(StandardCharsets.UTF_8));
        assertThat(status("DELETE", "/v0/entity?id=gone"), is(202));
        assertThat(status("GET", "/v0/entity?id=gone"), is(404));
    }

    @Test
    void deleteOfAnAbsentKeyIs202() throws Exception {
        assertThat(status("DELETE", "/v0/entity?id=never-existed"), is(202));
    }

    @Test
    void percentEncodedIdsAreDecodedAsUtf8() throws Exception {
        put("caf%C3%A9%20%26%20co", "v".getBytes(StandardCharsets.UTF_8));
        assertThat(status("GET", "/v0/entity?id=caf%C3%A9+%26+co"), is(200));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v0/entity", "/v0/entity?id=", "/v0/entity?other=1", "/v0/entity?id"})
    void missingOrEmptyIdIs400(String target) throws Exception {
        assertThat(status("GET", target), is(400));
        assertThat(status("PUT", target), is(400));
        assertThat(status("DELETE", target), is(400));
    }

    @Test
    void malformedPercentEncodingIs400() throws Exception {
        // The JDK client refuses to send such a URI, so this one goes over a raw socket.
        assertThat(RawHttp.get(node.port(), "/v0/entity?id=%zz").status(), is(400));
        assertThat(RawHttp.get(node.port(), "/v0/entities?start=%e9%").status(), is(400));
    }

    /**
     * A parameter named twice is ambiguous: a proxy or an access check in front of the node may
     * read the other value than the node would (HTTP parameter pollution). Refused whole.
     */
    @ParameterizedTest
    @ValueSource(strings = {"id=dup-a&id=dup-b", "id=dup-a&i%64=dup-b", "id=dup-a&replicas=1/1&replicas=9/9",
            "id=dup-a&ttl=5&ttl=x", "id=dup-a&id"})
    void aParameterGivenTwiceIs400AndNothingIsWritten(String query) throws Exception {
        HttpResponse<String> put = requests.text("PUT", "/v0/entity?" + query, "v");
        assertThat(put.statusCode(), is(400));
        assertThat(put.body(), containsString("given more than once"));
        assertThat(status("GET", "/v0/entity?" + query), is(400));
        assertThat(status("GET", "/v0/entity?id=dup-a"), is(404));
        assertThat(status("GET", "/v0/entity?id=dup-b"), is(404));
        assertThat(status("GET", "/v0/entities?start=a&start=b"), is(400));
    }

    /** The largest target the server takes, of distinct parameters: served; with one named twice at its end: 400. */
    @Test
    void aFullLengthTargetOfDistinctParametersIsServedAndOneNamedTwiceIsFoundAtItsEnd() throws Exception {
        StringBuilder target = new StringBuilder("/v0/entity?id=many");
        for (int i = 0; target.length() < 7_900; i++) {
            target.append("&p").append(i).append('=');
        }
        assertThat(status("GET", target.toString()), is(404));
        HttpResponse<String> twice = requests.text("GET", target + "&p7=", null);
        assertThat(twice.statusCode(), is(400));
        assertThat(twice.body(), containsString("query parameter 'p7' is given more than once"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PATCH", "OPTIONS"})
    void unsupportedMethodOnEntityIs405WithAllow(String method) throws Exception {
        HttpResponse<byte[]> response = send(method, "/v0/entity?id=k", null);
        assertThat(response.statusCode(), is(405));
        assertThat(response.headers().firstValue("Allow").orElse(""), containsString("PUT"));
    }

    @Test
    void unsupportedMethodOnStatusAndEntitiesIs405() throws Exception {
        assertThat(send("POST", "/v0/status", null).headers().firstValue("Allow").orElse(""), is("GET, HEAD"));
        assertThat(status("DELETE", "/v0/entities?start=a"), is(405));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/v0", "/v1/entity?id=k", "/v0/entity/k"})
    void unknownPathIs400(String target) throws Exception {
        assertThat(status("GET", target), is(400));
    }

    @Test
    void statusIs200WithJsonWhenServing() throws Exception {
        HttpResponse<byte[]> response = send("GET", "/v0/status", null);
        assertThat(response.statusCode(), is(200));
        assertThat(response.headers().firstValue("Content-Type").orElse(""), is("application/json"));
        String json = new String(response.body(), StandardCharsets.UTF_8);
        assertThat(JsonText.stringField(json, "node").orElseThrow(), is(node.url()));
        assertThat(JsonText.stringField(json, "state").orElseThrow(), is("serving"));
        assertThat(JsonText.stringField(json, "version").orElseThrow(), is(Node.VERSION));
        assertThat(JsonText.stringField(json, "topology").orElseThrow().length(), is(16));
        assertThat(JsonText.numberField(json, "uptimeSeconds").orElseThrow() >= 0, is(true));
        assertThat("a node alone has no peers and no warnings", json, containsString("\"warnings\":[],\"peers\":[],"));
    }

    @Test
    void statusIs503WithJsonWhileStopping() throws Exception {
        // A long drain: the node stops accepting only after it, or when the closing thread is interrupted.
        Node draining = Node.start(NodeConfig.singleNode(0, data.resolve("draining")).withDrainDelay(java.time.Duration.ofMinutes(5)));
        Thread closing = new Thread(draining::close, "closing");
        closing.start();
        HttpRequest request = HttpRequest.newBuilder(URI.create(draining.url() + "/v0/status")).build();
        HttpResponse<String> response = requests.client().send(request, BodyHandlers.ofString());
        while (response.statusCode() == 200) {
            Thread.sleep(10);
            response = requests.client().send(request, BodyHandlers.ofString());
        }
        assertThat(response.statusCode(), is(503));
        assertThat(JsonText.stringField(response.body(), "state").orElseThrow(), is("stopping"));
        assertThat(response.headers().firstValue("Retry-After").orElse(""), is("1"));
        HttpRequest put = HttpRequest.newBuilder(URI.create(draining.url() + "/v0/entity?id=k"))
                .PUT(BodyPublishers.ofString("v")).build();
        assertThat("still serving while it drains", requests.client().send(put, BodyHandlers.discarding()).statusCode(), is(201));
        closing.interrupt();
        closing.join();
    }

    @ParameterizedTest
    @ValueSource(strings = {"x", "1", "1/", "/1", "0/1", "2/1", "1/2", "a/b", "1/1/1", "-1/1", "99999999999/1"})
    void badReplicasParameterIs400(String replicas) throws Exception {
        assertThat(status("GET", "/v0/entity?id=k&replicas=" + replicas), is(400));
        assertThat(status("PUT", "/v0/entity?id=k&replicas=" + replicas), is(400));
    }

    @Test
    void replicasOneOfOneWorksOnASingleNode() throws Exception {
        assertThat(send("PUT", "/v0/entity?id=k&replicas=1/1", new byte[] {1}).statusCode(), is(201));
        assertThat(status("GET", "/v0/entity?id=k&replicas=1/1"), is(200));
    }

    @Test
    void bodyOverTheLimitIs413AndTheNodeKeepsServing() throws Exception {
        byte[] tooLarge = new byte[(int) MAX_BODY + 1];
        assertThat(send("PUT", "/v0/entity?id=big", tooLarge).statusCode(), is(413));
        assertThat(status("GET", "/v0/entity?id=big"), is(404));
        put("small", new byte[(int) MAX_BODY]);
        assertThat(status("GET", "/v0/entity?id=small"), is(200));
    }

    /**
     * Past the server's own limit too (the API's plus a peer batch's envelope), the answer says
     * what a limit is: the API's where it looks at the head first (h2), the server's where the
     * HTTP/1.1 parser refuses the length before the head reaches the API.
     */
    @Test
    void bodyOverTheServersLimitIs413WithALimitInItsMessage() throws Exception {
        long serverLimit = MAX_BODY + io.ringkv.cluster.InternalProtocol.ONE_WRITE_ENVELOPE_BYTES;
        HttpResponse<byte[]> answer = send("PUT", "/v0/entity?id=huge", new byte[(int) serverLimit + 1]);
        assertThat(answer.statusCode(), is(413));
        assertThat(new String(answer.body(), StandardCharsets.UTF_8), containsString(protocol.equals("H2C")
                ? "request body too large: this request takes at most " + MAX_BODY + " bytes"
                : "request body too large: this server takes at most " + serverLimit + " bytes"));
        assertThat(status("GET", "/v0/entity?id=huge"), is(404));
    }

    @OwnNode
    @Test
    void rangeIsStreamedOneChunkPerRecordSortedWithEndExclusiveAndTombstonesSkipped() throws Exception {
        for (String key : List.of("b", "a", "d", "c", "e")) {
            put(key, ("v" + key).getBytes(StandardCharsets.UTF_8));
        }
        assertThat(status("DELETE", "/v0/entity?id=c"), is(202));
        RawHttp.Reply reply = RawHttp.get(node.port(), "/v0/entities?start=a&end=e");
        assertThat(reply.status(), is(200));
        assertThat(reply.headers().get("transfer-encoding"), is("chunked"));
        assertThat(texts(reply.chunks()), equalTo(List.of("a\nva", "b\nvb", "d\nvd")));
    }

    @OwnNode
    @Test
    void rangeWithoutEndRunsToTheLastKey() throws Exception {
        for (String key : List.of("a", "m", "z")) {
            put(key, key.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(texts(RawHttp.get(node.port(), "/v0/entities?start=b").chunks()), equalTo(List.of("m\nm", "z\nz")));
    }

    @OwnNode
    @Test
    void emptyRangeIsAnEmptyChunkedBody() throws Exception {
        RawHttp.Reply reply = RawHttp.get(node.port(), "/v0/entities?start=x&end=y");
        assertThat(reply.status(), is(200));
        assertThat(reply.chunks(), is(empty()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v0/entities", "/v0/entities?start=", "/v0/entities?end=z", "/v0/entities?start=a&local=maybe"})
    void rangeWithoutStartIs400(String target) throws Exception {
        assertThat(status("GET", target), is(400));
    }

    @OwnNode
    @Test
    void rangeLargerThanAnyReadBufferArrivesComplete() throws Exception {
        int records = 3000;
        byte[] value = new byte[1000];
        new Random(7).nextBytes(value);
        List<String> expectedKeys = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            String key = String.format("key%06d", i);
            expectedKeys.add(key);
            put(key, value);
        }
        RawHttp.Reply reply = RawHttp.get(node.port(), "/v0/entities?start=key");
        assertThat(reply.chunks().size(), is(records));
        List<String> keys = new ArrayList<>();
        for (byte[] chunk : reply.chunks()) {
            keys.add(new String(chunk, 0, 9, StandardCharsets.UTF_8));
            assertThat(chunk.length, is(9 + 1 + value.length));
        }
        assertThat(keys, equalTo(expectedKeys));
    }

    private static List<String> texts(List<byte[]> chunks) {
        return chunks.stream().map(c -> new String(c, StandardCharsets.UTF_8)).toList();
    }
}
