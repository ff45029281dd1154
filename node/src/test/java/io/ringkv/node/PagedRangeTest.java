package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.ringkv.node.SharedNodeKeys.OwnNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Paged ranges ({@code limit}, the {@code Link: <...>; rel="next"} header) and key-only ranges
 * ({@code keysOnly}) on one node, over real sockets, over HTTP/1.1 and h2c. Chunk boundaries are
 * checked over a raw HTTP/1.1 socket, where they are visible.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
class PagedRangeTest {
    private static final Pattern NEXT = Pattern.compile("<([^>]*)>; rel=\"next\"");

    /** The node of every test, of both protocols, not marked OwnNode; each test's keys are its own (SharedNodeKeys). */
    @RegisterExtension
    static final SharedNode<Node> NODES = SharedNode.of(data -> NodeConfig.singleNode(0, data));

    @Parameter
    String protocol;

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

    private HttpResponse<byte[]> send(String method, String target, byte[] body) throws Exception {
        return requests.bytes(method, target, body);
    }

    private void put(String encodedId, String value) throws Exception {
        assertThat(send("PUT", "/v0/entity?id=" + encodedId, value.getBytes(StandardCharsets.UTF_8)).statusCode(), is(201));
    }

    private List<String> putNumbered(int count) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = String.format("key%02d", i);
            put(key, "value-" + i);
            keys.add(key);
        }
        return keys;
    }

    /** The target of the {@code rel="next"} link, or null when there is none. */
    private static String next(String linkField) {
        if (linkField == null) {
            return null;
        }
        Matcher matcher = NEXT.matcher(linkField);
        assertThat("a Link field naming the next page: " + linkField, matcher.matches(), is(true));
        return matcher.group(1);
    }

    @OwnNode
    @Test
    void twentyFiveKeysInPagesOfTenArriveAsTenTenAndFiveFollowingTheLinks() throws Exception {
        List<String> keys = putNumbered(25);
        List<Integer> pageSizes = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        String target = "/v0/entities?start=key&end=kez&limit=10";
        while (target != null) {
            RawHttp.Reply page = RawHttp.get(node.port(), target);
            assertThat(page.status(), is(200));
            pageSizes.add(page.chunks().size());
            for (byte[] chunk : page.chunks()) {
                String text = new String(chunk, StandardCharsets.UTF_8);
                String key = text.substring(0, text.indexOf('\n'));
                assertThat(text, is(key + "\nvalue-" + Integer.parseInt(key.substring(3))));
                seen.add(key);
            }
            target = next(page.headers().get("link"));
        }
        assertThat(pageSizes, equalTo(List.of(10, 10, 5)));
        assertThat("every key once, in order", seen, equalTo(keys));
    }

    @OwnNode
    @Test
    void keysOnlyPagesOverEitherProtocolHoldOneKeyAndANewlinePerRecord() throws Exception {
        List<String> keys = putNumbered(25);
        StringBuilder all = new StringBuilder();
        List<Integer> pageSizes = new ArrayList<>();
        String target = "/v0/entities?start=key&limit=10&keysOnly=true";
        while (target != null) {
            HttpResponse<byte[]> page = send("GET", target, null);
            assertThat(page.statusCode(), is(200));
            String body = new String(page.body(), StandardCharsets.UTF_8);
            pageSizes.add(body.split("\n", -1).length - 1);
            all.append(body);
            target = next(page.headers().firstValue("Link").orElse(null));
        }
        assertThat(pageSizes, equalTo(List.of(10, 10, 5)));
        assertThat(all.toString(), is(String.join("\n", keys) + "\n"));
    }

    @OwnNode
    @Test
    void keysOnlyWithoutALimitStreamsOneChunkPerKey() throws Exception {
        put("a", "1");
        put("b", "2");
        put("c", "3");
        RawHttp.Reply reply = RawHttp.get(node.port(), "/v0/entities?start=a&end=c&keysOnly=true");
        assertThat(reply.status(), is(200));
        assertThat(texts(reply.chunks()), equalTo(List.of("a\n", "b\n")));
        assertThat(reply.headers().get("link"), is(nullValue()));
    }

    @OwnNode
    @Test
    void keysOnlyFalseAndNoLimitIsTheUnpagedRange() throws Exception {
        put("a", "1");
        put("b", "2");
        RawHttp.Reply reply = RawHttp.get(node.port(), "/v0/entities?start=a&keysOnly=false");
        assertThat(texts(reply.chunks()), equalTo(List.of("a\n1", "b\n2")));
    }

    @OwnNode
    @Test
    void aPageThatHoldsTheRestHasNoLinkAndAnEmptyPageIsEmpty() throws Exception {
        putNumbered(3);
        RawHttp.Reply exact = RawHttp.get(node.port(), "/v0/entities?start=key&limit=3");
        assertThat(exact.chunks().size(), is(3));
        assertThat("three of three: nothing follows", exact.headers().get("link"), is(nullValue()));
        RawHttp.Reply empty = RawHttp.get(node.port(), "/v0/entities?start=x&limit=3");
        assertThat(empty.status(), is(200));
        assertThat(empty.chunks().size(), is(0));
        assertThat(empty.headers().get("link"), is(nullValue()));
    }

    @OwnNode
    @Test
    void aKeyDeletedBetweenPagesDoesNotAppearAndOneAddedAheadDoes() throws Exception {
        for (String key : List.of("a", "b", "c", "d", "e")) {
            put(key, key);
        }
        RawHttp.Reply first = RawHttp.get(node.port(), "/v0/entities?start=a&limit=2");
        assertThat(texts(first.chunks()), equalTo(List.of("a\na", "b\nb")));
        assertThat(send("DELETE", "/v0/entity?id=c", null).statusCode(), is(202));
        put("bb", "bb");
        RawHttp.Reply second = RawHttp.get(node.port(), next(first.headers().get("link")));
        assertThat(texts(second.chunks()), equalTo(List.of("bb\nbb", "d\nd")));
    }

    @OwnNode
    @Test
    void theNextLinkKeepsTheOtherParameters() throws Exception {
        putNumbered(5);
        HttpResponse<byte[]> page = send("GET", "/v0/entities?start=key&end=key04&limit=2&keysOnly=true&local=true", null);
        String link = next(page.headers().firstValue("Link").orElseThrow());
        assertThat(link, is("/v0/entities?start=key01%00&end=key04&limit=2&keysOnly=true&local=true"));
        assertThat(new String(send("GET", link, null).body(), StandardCharsets.UTF_8), is("key02\nkey03\n"));
    }

    /** Keys of any bytes survive the trip through the link: each page names the key after the last one exactly. */
    @OwnNode
    @Test
    void keysWithSpecialCharactersRoundTripThroughTheNextLink() throws Exception {
        List<String> encodedIds = List.of("a%20b", "a%26b", "a%25b", "a%2Bb", "a%3Db", "a%3Eb", "a%22b", "a%23b",
                "caf%C3%A9", "a%00b", "a", "a%0Ab", "%FF%FE", "a%3Fb%2F");
        for (String id : encodedIds) {
            put(id, "v");
        }
        List<String> expected = encodedIds.stream().map(PagedRangeTest::decode)
                .sorted(Arrays::compareUnsigned).map(HexFormat.of()::formatHex).toList();
        List<String> seen = new ArrayList<>();
        String target = "/v0/entities?start=%00&limit=1&keysOnly=true";
        while (target != null) {
            RawHttp.Reply page = RawHttp.get(node.port(), target);
            assertThat(target, page.status(), is(200));
            assertThat(page.chunks().size(), is(1));
            byte[] chunk = page.chunks().get(0);
            assertThat(chunk[chunk.length - 1], is((byte) '\n'));
            seen.add(HexFormat.of().formatHex(chunk, 0, chunk.length - 1));
            target = next(page.headers().get("link"));
        }
        assertThat(seen, equalTo(expected));
    }

    /**
     * After a key of the longest length the next page starts at the first key that can follow it
     * ({@code kk...l} after {@code kk...k}), not at the key plus a zero byte, which would be over
     * the limit and refused.
     */
    @OwnNode
    @Test
    void thePageAfterTheLongestKeyStartsWithinTheKeyLimit() throws Exception {
        String longest = "k".repeat(PublicApi.KEY_BYTES_MAX);
        String following = "k".repeat(PublicApi.KEY_BYTES_MAX - 1) + "l";
        put(longest, "1");
        put(following, "2");
        RawHttp.Reply first = RawHttp.get(node.port(), "/v0/entities?start=k&limit=1&keysOnly=true");
        String link = next(first.headers().get("link"));
        assertThat(link, is("/v0/entities?start=" + following + "&limit=1&keysOnly=true"));
        RawHttp.Reply second = RawHttp.get(node.port(), link);
        assertThat(second.status(), is(200));
        assertThat(texts(second.chunks()), equalTo(List.of(following + "\n")));
        assertThat(second.headers().get("link"), is(nullValue()));
    }

    @OwnNode
    @Test
    void theLargestLimitIsAccepted() throws Exception {
        putNumbered(2);
        HttpResponse<byte[]> page = send("GET", "/v0/entities?start=key&keysOnly=true&limit=" + RangeQuery.LIMIT_MAX, null);
        assertThat(page.statusCode(), is(200));
        assertThat(new String(page.body(), StandardCharsets.UTF_8), is("key00\nkey01\n"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"limit=0", "limit=-1", "limit=10001", "limit=abc", "limit=", "limit=1.5", "limit=+5",
            "limit=99999999999999999999", "limit", "keysOnly=yes", "keysOnly=", "keysOnly=TRUE", "keysOnly=1"})
    void aBadLimitOrKeysOnlyIs400WithAMessage(String parameter) throws Exception {
        HttpResponse<byte[]> response = send("GET", "/v0/entities?start=a&" + parameter, null);
        assertThat(response.statusCode(), is(400));
        String name = parameter.contains("=") ? parameter.substring(0, parameter.indexOf('=')) : parameter;
        assertThat(new String(response.body(), StandardCharsets.UTF_8), containsString(name));
    }

    @OwnNode
    @Test
    void headOfAPageHasTheLinkAndNoBody() throws Exception {
        putNumbered(3);
        HttpResponse<byte[]> head = send("HEAD", "/v0/entities?start=key&limit=2", null);
        assertThat(head.statusCode(), is(200));
        assertThat(head.body().length, is(0));
        assertThat(next(head.headers().firstValue("Link").orElseThrow()), is("/v0/entities?start=key01%00&limit=2"));
    }

    private static byte[] decode(String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            if (encoded.charAt(i) == '%') {
                out.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(encoded.charAt(i));
            }
        }
        return out.toByteArray();
    }

    private static List<String> texts(List<byte[]> chunks) {
        return chunks.stream().map(c -> new String(c, StandardCharsets.UTF_8)).toList();
    }
}
