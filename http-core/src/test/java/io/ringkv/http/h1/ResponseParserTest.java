package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.h1.ResponseHead.Framing;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Well-formed responses, each under every {@link Chunking}. */
class ResponseParserTest {

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesAContentLengthBody(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false), contains(
                "head 200 OK 1.1 {content-length: 5} keepAlive=true LENGTH length=5", "body hello", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesAChunkedBodyWithExtensionsAndTrailers(Chunking chunking) {
        String wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nDigest: z\r\n\r\n";
        assertThat(ResponseTranscript.of(chunking, "GET", wire, false), contains(
                "head 200 OK 1.1 {transfer-encoding: chunked} keepAlive=true CHUNKED length=-1",
                "body abcde", "end {digest: z}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void answersToHeadHaveNoBodyWhateverTheirContentLength(Chunking chunking) {
        String wire = "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        List<String> events = ResponseTranscript.of(chunking, H1Limits.defaults(), List.of("HEAD", "GET"),
                wire.getBytes(ISO_8859_1), false);
        assertThat(events, contains(
                "head 200 OK 1.1 {content-length: 42} keepAlive=true NONE length=0", "end {}",
                "head 200 OK 1.1 {content-length: 2} keepAlive=true LENGTH length=2", "body ok", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void noContentAndNotModifiedHaveNoBody(Chunking chunking) {
        String wire = "HTTP/1.1 204 No Content\r\n\r\n" + "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n";
        List<String> events = ResponseTranscript.of(chunking, H1Limits.defaults(), List.of("DELETE", "GET"),
                wire.getBytes(ISO_8859_1), false);
        assertThat(events, contains(
                "head 204 No Content 1.1 {} keepAlive=true NONE length=0", "end {}",
                "head 304 Not Modified 1.1 {content-length: 9} keepAlive=true NONE length=0", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void reportsInterimResponsesBeforeTheFinalOne(Chunking chunking) {
        String wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
        assertThat(ResponseTranscript.of(chunking, "PUT", wire, false), contains(
                "interim 100 {}", "interim 103 {link: </a>}",
                "head 201 Created 1.1 {content-length: 0} keepAlive=true NONE length=0", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void readsABodyWithoutLengthUntilTheServerCloses(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 200 OK\r\n\r\nall of it", true), contains(
                "head 200 OK 1.1 {} keepAlive=false UNTIL_CLOSE length=-1", "body all of it", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void rejectsAResponseTruncatedByTheClose(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", true), contains(
                "head 200 OK 1.1 {content-length: 5} keepAlive=true LENGTH length=5", "body hel", "error truncated_response"));
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 200 OK\r\nContent-", true),
                contains("error truncated_response"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void appliesTheKeepAliveRulesOfEachVersion(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false).get(0),
                is("head 200 OK 1.0 {content-length: 0} keepAlive=false NONE length=0"));
        assertThat(ResponseTranscript.of(chunking, "GET",
                "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", false).get(0),
                is("head 200 OK 1.0 {connection: keep-alive, content-length: 0} keepAlive=true NONE length=0"));
        assertThat(ResponseTranscript.of(chunking, "GET",
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false).get(0),
                is("head 200 OK 1.1 {connection: close, content-length: 0} keepAlive=false NONE length=0"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsAStatusLineWithoutReasonPhrase(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", false).get(0),
                is("head 404  1.1 {content-length: 0} keepAlive=true NONE length=0"));
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", false).get(0),
                is("head 404  1.1 {content-length: 0} keepAlive=true NONE length=0"));
    }

    /** RFC 9110 §15: 600-999 are invalid codes a client should treat as 5xx, not as a broken response. */
    @ParameterizedTest
    @EnumSource(Chunking.class)
    void passesStatusCodesAbove599On(Chunking chunking) {
        assertThat(ResponseTranscript.of(chunking, "GET", "HTTP/1.1 999 Odd\r\nContent-Length: 2\r\n\r\nok", false), contains(
                "head 999 Odd 1.1 {content-length: 2} keepAlive=true LENGTH length=2", "body ok", "end {}"));
    }

    /** A folded line continues a field; it is not one more field for the count limit. */
    @ParameterizedTest
    @EnumSource(Chunking.class)
    void aFoldedLineDoesNotCountAsAField(Chunking chunking) {
        H1Limits oneField = new H1Limits(8 * 1024, 32 * 1024, 1, 1024);
        String wire = "HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\n c\r\n\r\n";
        List<String> events = ResponseTranscript.of(chunking, oneField, List.of("HEAD"), wire.getBytes(ISO_8859_1), false);
        assertThat(events, contains("head 200 OK 1.1 {x-a: a b c} keepAlive=true NONE length=0", "end {}"));
    }

    /** RFC 9112 §5.2: a user agent replaces obsolete line folding with a space, in headers and trailers. */
    @ParameterizedTest
    @EnumSource(Chunking.class)
    void unfoldsObsoleteLineFolding(Chunking chunking) {
        String wire = "HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\n\tc \r\nX-Empty:\r\n d\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\nok\r\n0\r\nT: x\r\n y\r\n\r\n";
        assertThat(ResponseTranscript.of(chunking, "GET", wire, false), contains(
                "head 200 OK 1.1 {x-folded: a b c, x-empty: d, transfer-encoding: chunked} keepAlive=true CHUNKED length=-1",
                "body ok", "end {t: x y}"));
    }

    /**
     * Values repeated at the same place in the next response on the connection are the previous
     * response's Strings (no copy); a value that changed, moved or is too long to keep is read anew.
     */
    @Test
    void reusesTheValuesTheLastResponseHadAtTheSamePlace() throws Exception {
        String longValue = "v".repeat(65);
        ResponseParser parser = new ResponseParser(H1Limits.defaults());
        ResponseHead first = parseOne(parser, "HTTP/1.1 200 OK\r\nServer: s\r\nDate: d1\r\nX-Long: " + longValue
                + "\r\nContent-Length: 0\r\n\r\n");
        ResponseHead second = parseOne(parser, "HTTP/1.1 200 OK\r\nServer: s\r\nDate: d2\r\nX-Long: " + longValue
                + "\r\nContent-Length: 0\r\n\r\n");
        ResponseHead third = parseOne(parser, "HTTP/1.1 200 OK\r\nDate: d2\r\nServer: s\r\nContent-Length: 0\r\n\r\n");
        assertThat(second.headers().value(0), sameInstance(first.headers().value(0)));
        assertThat(second.headers().value(1), is("d2"));
        assertThat(second.headers().value(2), is(longValue));
        assertThat(second.headers().value(2), not(sameInstance(first.headers().value(2))));
        assertThat(second.headers().value(3), sameInstance(first.headers().value(3)));
        assertThat(third.headers().value(0), is("d2"));
        assertThat(third.headers().value(1), is("s"));
        assertThat(third.headers().value(2), is("0"));
        assertThat(second.reason(), sameInstance(first.reason()));
    }

    private static ResponseHead parseOne(ResponseParser parser, String wire) throws Exception {
        parser.begin("GET");
        ByteBuffer in = ByteBuffer.wrap(wire.getBytes(ISO_8859_1));
        ResponseHead head = (ResponseHead) parser.next(in);
        assertThat(parser.next(in), instanceOf(MessageEnd.class));
        return head;
    }

    @Test
    void leavesTheBytesAfterSwitchingProtocolsToTheNewProtocol() throws Exception {
        ResponseParser parser = new ResponseParser(H1Limits.defaults());
        parser.begin("GET");
        ByteBuffer in = ByteBuffer.wrap("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\nPRI *".getBytes(ISO_8859_1));
        ResponseHead head = (ResponseHead) parser.next(in);
        assertThat(head.framing(), is(Framing.SWITCHED));
        assertThat(head.keepAlive(), is(false));
        assertThat(parser.next(in), instanceOf(MessageEnd.class));
        assertThat(parser.next(in), nullValue());
        assertThat(in.remaining(), is(5));
        assertThat(parser.endOfInput(), nullValue());
    }

    @Test
    void treatsASuccessfulConnectAsATunnel() throws Exception {
        ResponseParser parser = new ResponseParser(H1Limits.defaults());
        parser.begin("CONNECT");
        ByteBuffer in = ByteBuffer.wrap("HTTP/1.1 200 Connection Established\r\n\r\n\u0016\u0003".getBytes(ISO_8859_1));
        assertThat(((ResponseHead) parser.next(in)).framing(), is(Framing.SWITCHED));
        assertThat(parser.next(in), instanceOf(MessageEnd.class));
        assertThat(parser.next(in), nullValue());
        assertThat(in.remaining(), is(2));
    }

    @Test
    void refusesToBeginBeforeTheCurrentResponseEnds() {
        ResponseParser parser = new ResponseParser(H1Limits.defaults());
        parser.begin("GET");
        assertThrows(IllegalStateException.class, () -> parser.begin("GET"));
    }

    @Test
    void endOfInputWhileIdleIsACleanClose() throws Exception {
        assertThat(new ResponseParser(H1Limits.defaults()).endOfInput(), nullValue());
    }
}
